"""Group events end to end: a simulated contact's group reaches the device's webhook."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator, subscribe
from webhook_receiver import Receiver

pytestmark = pytest.mark.e2e

SECRET = "group-events-secret"


def test_a_group_created_with_the_device_s_account_reaches_the_receiver_as_group_joined(
    api: Any, receiver: Receiver
) -> None:
    # Given a tenant's device paired as phone A, subscribed to group.joined with a secret
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    path = receiver.path()
    subscribe(
        api, tenant.admin_token, device_id, receiver.url(path), enabled_events=["group.joined"], secret=SECRET
    )
    phone_a, phone_b = new_phone(), new_phone()
    device = pair_by_qr(api, tenant.admin_token, device_id, phone_a)
    contact = simulator(api, "POST", "/accounts", phone=phone_b)

    # When contact B creates a group with A among the participants
    group = simulator(api, "POST", f"/accounts/{phone_b}/groups", name="Trip", participants=[phone_a])

    # Then the receiver gets a signed group.joined envelope for the device with the group's JID
    found = receiver.wait_for(
        path,
        lambda requests: any(r.ok and r.envelope["event"] == "group.joined" for r in requests),
        expected="a delivered group.joined",
    )
    request = next(r for r in found if r.envelope["event"] == "group.joined")
    envelope = request.envelope
    assert envelope["device_id"] == device_id
    assert request.headers["x-webhook-event"] == "group.joined"
    data = envelope["data"]
    assert data["group_jid"] == group["jid"]
    assert data["name"] == "Trip"
    assert data["author"] == contact["jid"]
    assert {"jid": device["messaging_jid"], "is_admin": False, "is_super_admin": False} in data[
        "participants"
    ]
    expected = "sha256=" + hmac.new(SECRET.encode(), request.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request.headers["x-webhook-signature-256"], expected)
    assert "signature" in envelope
