"""Standard Webhooks end to end: real deliveries, through the events queue and the delivery
worker to a receiver on loopback, verified by the official ``standardwebhooks`` library as a
receiver in any language would verify them, for both forms of secret; and a replay refused."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, subscribe
from standardwebhooks import Webhook, WebhookVerificationError
from webhook_receiver import Receiver, Request, failing_first

pytestmark = pytest.mark.e2e

WHSEC = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
UTF8_SECRET = "receiver-shared-secret-ü"


def legacy_signature(secret: str, body: bytes) -> str:
    """X-Webhook-Signature-256 as before: keyed by the secret's UTF-8 bytes, whatever its form."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def signed_device(api: Any, receiver: Receiver, secret: str, behaviour: Any = None) -> tuple[Any, str, str]:
    """A new tenant's device whose webhook, signed with ``secret``, sends device.connected to a
    new path of ``receiver`` answered by ``behaviour``: (tenant, device id, path)."""
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    path = receiver.path(behaviour)
    url = receiver.url(path)
    subscribe(api, tenant.admin_token, device_id, url, enabled_events=["device.connected"], secret=secret)
    return tenant, device_id, path


def connected_attempts(receiver: Receiver, path: str, count: int) -> list[Request]:
    """The attempts of device.connected at ``path`` once ``count`` of them arrived."""

    def attempts(found: list[Request]) -> list[Request]:
        return [r for r in found if r.envelope["event"] == "device.connected"]

    receiver.wait_for(
        path, lambda found: len(attempts(found)) >= count, timeout=20, expected=f"{count} attempts"
    )
    return attempts(receiver.requests(path))


@pytest.mark.parametrize(
    ("secret", "library_key"),
    [(WHSEC, WHSEC), (UTF8_SECRET, UTF8_SECRET.encode("utf-8"))],
    ids=["whsec-key", "utf-8-secret"],
)
def test_every_attempt_verifies_with_the_standard_webhooks_library(
    api: Any, receiver: Receiver, secret: str, library_key: str | bytes
) -> None:
    # Given a device whose webhook has a secret (a whsec_ key, given to the library as is, or
    # any other secret, whose UTF-8 bytes are the key), at a receiver that refuses the first
    # two attempts of every event
    tenant, device_id, path = signed_device(api, receiver, secret, failing_first(2))

    # When the device connects
    began = int(time.time())
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())

    # Then device.connected arrives three times, 1 s and 2 s apart
    attempts = connected_attempts(receiver, path, 3)
    ended = int(time.time())
    assert [r.status for r in attempts] == [500, 500, 200]

    for request in attempts:
        # And the official library verifies each attempt and gives back the envelope
        assert Webhook(library_key).verify(request.body, request.headers) == request.envelope
        # And webhook-id is the envelope's id, webhook-timestamp the attempt's time
        assert request.headers["webhook-id"] == request.envelope["id"] == request.headers["x-webhook-id"]
        assert began <= int(request.headers["webhook-timestamp"]) <= ended
        # And the existing signatures are still there, exactly as before
        assert request.headers["x-webhook-signature-256"] == legacy_signature(secret, request.body)
        assert request.headers["x-webhook-timestamp"] == str(request.envelope["timestamp"])
        assert request.envelope["signature"].startswith("sha256=")

    # And each attempt carries its own time: the third came 3 s after the first, while the
    # event's own timestamp stayed the same
    stamps = [int(r.headers["webhook-timestamp"]) for r in attempts]
    assert stamps == sorted(stamps)
    assert stamps[2] - stamps[0] >= 2
    assert len({r.headers["x-webhook-timestamp"] for r in attempts}) == 1


def test_a_replayed_delivery_cannot_be_made_fresh(api: Any, receiver: Receiver) -> None:
    # Given a delivery someone captured on its way
    tenant, device_id, path = signed_device(api, receiver, WHSEC)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    (captured,) = connected_attempts(receiver, path, 1)
    Webhook(WHSEC).verify(captured.body, captured.headers)

    # When it is replayed with its timestamp moved to look recent
    sent_at = int(captured.headers["webhook-timestamp"])
    freshened = {**captured.headers, "webhook-timestamp": str(sent_at + 30)}

    # Then the library refuses it: the timestamp is signed (that it refuses the delivery as
    # captured once five minutes have passed is tests/unit/test_standard_webhooks.py's)
    with pytest.raises(WebhookVerificationError, match="No matching signature"):
        Webhook(WHSEC).verify(captured.body, freshened)


def test_a_secret_stored_before_the_minimum_keeps_signing(api: Any, receiver: Receiver) -> None:
    from gateway.models import WebhookModel

    # Given a configuration whose secret was stored before secrets had a minimum length
    tenant, device_id, path = signed_device(api, receiver, "x" * 16)
    url = receiver.url(path)
    WebhookModel.get(tenant.id, device_id).update(actions=[WebhookModel.secret.set("s3cret")])

    # When an update leaves the secret out, the URL unchanged
    response = api.request(
        "POST",
        "/webhook",
        tenant.admin_token,
        json={"webhook_url": url, "enabled_events": ["device.connected"], "timeout": 5},
        headers={"X-Device-Id": device_id},
    )
    assert response.status_code == 200, response.text
    assert response.json()["webhook"]["has_secret"] is True

    # Then the device's deliveries are signed with it, both ways
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    (request,) = connected_attempts(receiver, path, 1)
    Webhook(b"s3cret").verify(request.body, request.headers)
    assert request.headers["x-webhook-signature-256"] == legacy_signature("s3cret", request.body)
