"""Group messages end to end: a simulated contact writes to a group the device's account is in,
and the device's webhook receives it as a group message; the announce rule refuses others."""

from __future__ import annotations

from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator, subscribe
from webhook_receiver import Receiver

pytestmark = pytest.mark.e2e


def test_a_contact_s_group_message_reaches_the_receiver_and_an_announce_group_refuses_members(
    api: Any, receiver: Receiver
) -> None:
    # Given a tenant's device paired as phone A, subscribed to message.received, and contacts B and C
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    path = receiver.path()
    subscribe(api, tenant.admin_token, device_id, receiver.url(path), enabled_events=["message.received"])
    phone_a, phone_b, phone_c = new_phone(), new_phone(), new_phone()
    device = pair_by_qr(api, tenant.admin_token, device_id, phone_a)
    contact = simulator(api, "POST", "/accounts", phone=phone_b, name="Bob")
    simulator(api, "POST", "/accounts", phone=phone_c)

    # When B creates a group with A and C and writes to it
    group = simulator(
        api, "POST", f"/accounts/{phone_b}/groups", name="Trip", participants=[phone_a, phone_c]
    )
    sent = simulator(api, "POST", f"/accounts/{phone_b}/messages", to=group["jid"], text="see you at 8")

    # Then the device's receiver gets it as a message of the group from B
    found = receiver.wait_for(
        path,
        lambda requests: any(r.ok and r.envelope["event"] == "message.received" for r in requests),
        expected="a delivered message.received",
    )
    data = next(r for r in found if r.envelope["event"] == "message.received").envelope["data"]
    assert (data["message_id"], data["from"], data["to"], data["chat_jid"]) == (
        sent["message_id"],
        contact["jid"],
        group["jid"],
        group["jid"],
    )
    assert (data["is_group"], data["push_name"], data["content"]) == (True, "Bob", "see you at 8")
    assert device["messaging_jid"] != data["from"]

    # And C's phone has it in the group's chat
    inbox = simulator(api, "GET", f"/accounts/{phone_c}/inbox")
    assert [(m["chat"], m["text"]) for m in inbox["messages"]] == [(group["jid"], "see you at 8")]

    # When B makes the group announce-only, Then C may no longer write there
    response = api.request(
        "PATCH",
        f"/_simulator/accounts/{phone_b}/groups/{group['jid']}",
        api.master_token,
        json={"announcement": True},
    )
    assert response.status_code == 200, response.text
    refused = api.request(
        "POST",
        f"/_simulator/accounts/{phone_c}/messages",
        api.master_token,
        json={"to": group["jid"], "text": "?"},
    )
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["code"] == "not_group_admin"
