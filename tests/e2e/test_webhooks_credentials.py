"""A receiver's credentials follow its URL: an update that changes ``webhook_url`` keeps the
secret and the custom header values only when it gives them again (decisions, "Hostile
conditions"), so whoever may configure a device cannot send them to a server of their own."""

from __future__ import annotations

from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, subscribe
from standardwebhooks import Webhook
from webhook_receiver import Receiver

pytestmark = pytest.mark.e2e

ADMIN_SECRET = "the-admins-receiver-s3cret"
ADMIN_HEADERS = {"Authorization": "Bearer admins-receiver-token", "X-Tenant-Ref": "acme-42"}
SIGNATURE_HEADERS = {"x-webhook-signature-256", "webhook-id", "webhook-timestamp", "webhook-signature"}


def post_webhook(api: Any, token: str, device_id: str, **body: Any) -> Any:
    return api.request("POST", "/webhook", token, json=body, headers={"X-Device-Id": device_id})


def admin_configured(api: Any, receiver: Receiver, tenant: Any, device_id: str, events: list[str]) -> str:
    """Configure the device's webhook as the tenant's admin, at a new path of ``receiver``,
    with a secret and the receiver's headers; the path."""
    path = receiver.path()
    url = receiver.url(path)
    subscribe(
        api,
        tenant.admin_token,
        device_id,
        url,
        enabled_events=events,
        secret=ADMIN_SECRET,
        headers=ADMIN_HEADERS,
    )
    return path


def device_connected(receiver: Receiver, path: str) -> Any:
    """The first device.connected delivered to ``path``, once it arrived."""
    found = receiver.wait_for(
        path,
        lambda found: any(r.envelope["event"] == "device.connected" for r in found),
        expected="device.connected delivered",
    )
    return next(r for r in found if r.envelope["event"] == "device.connected")


def test_a_device_owner_who_moves_an_admin_configured_webhook_gets_no_credential(
    api: Any, receiver: Receiver, envelope: Any
) -> None:
    # Given a user's own device whose webhook the tenant's admin configured, at the admin's
    # receiver, with a secret and the receiver's bearer token
    tenant = api.register()
    _, user_token = api.create_user(tenant, "user")
    device_id = create_device(api, user_token)
    events = ["device.connected", "message"]
    admins, own = admin_configured(api, receiver, tenant, device_id, events), receiver.path()

    # When the user points it at a server of its own, posting back the masked headers as read
    read = api.request("GET", "/webhook", user_token, headers={"X-Device-Id": device_id}).json()["webhook"]
    assert read["headers"] == {"Authorization": "***", "X-Tenant-Ref": "***"}
    masked = post_webhook(
        api,
        user_token,
        device_id,
        webhook_url=receiver.url(own),
        enabled_events=events,
        headers=read["headers"],
    )

    # Then 400 on each masked header: a stored value is kept for its own URL only, and
    # nothing changed
    body = envelope(masked, 400, "VALIDATION_ERROR")
    assert {item["field"] for item in body["validation"]} <= {"headers.Authorization", "headers.X-Tenant-Ref"}
    assert "webhook_url" in body["validation"][0]["message"]
    unchanged = api.request("GET", "/webhook", user_token, headers={"X-Device-Id": device_id}).json()
    assert unchanged["webhook"] == read

    # When it moves the URL leaving the secret and the headers out
    moved = post_webhook(api, user_token, device_id, webhook_url=receiver.url(own), enabled_events=events)

    # Then the configuration keeps neither
    assert moved.status_code == 200, moved.text
    assert (moved.json()["webhook"]["has_secret"], moved.json()["webhook"]["headers"]) == (False, {})

    # And when the device connects, its device.connected reaches the user's server unsigned,
    # without the admin's receiver's headers, and nothing more reaches the admin's receiver
    pair_by_qr(api, user_token, device_id, new_phone())
    request = device_connected(receiver, own)
    assert "signature" not in request.envelope
    assert not (SIGNATURE_HEADERS | {"authorization", "x-tenant-ref"}) & set(request.headers)
    assert ADMIN_HEADERS["Authorization"] not in str(request.headers)
    assert receiver.requests(admins) == []


def test_credentials_given_again_with_the_new_url_are_kept(api: Any, receiver: Receiver) -> None:
    # Given a device configured with a secret and custom headers
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    events = ["device.connected"]
    first, second = admin_configured(api, receiver, tenant, device_id, events), receiver.path()

    def update(**body: Any) -> Any:
        new_url = receiver.url(second)
        return post_webhook(
            api, tenant.admin_token, device_id, webhook_url=new_url, enabled_events=events, **body
        )

    # When its admin moves it to another URL and gives the secret and one header again
    moved = update(secret=ADMIN_SECRET, headers={"Authorization": ADMIN_HEADERS["Authorization"]})
    assert moved.status_code == 200, moved.text
    assert (moved.json()["webhook"]["has_secret"], moved.json()["webhook"]["headers"]) == (
        True,
        {"Authorization": "***"},
    )

    # And then updates it without changing the URL, leaving both out and posting the mask
    kept = update(headers={"Authorization": "***"}, timeout=5)
    assert kept.status_code == 200, kept.text

    # Then deliveries to the new URL carry what was given again, signed with the secret,
    # and not the header left behind
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    request = device_connected(receiver, second)
    assert request.headers["authorization"] == ADMIN_HEADERS["Authorization"]
    assert "x-tenant-ref" not in request.headers
    Webhook(ADMIN_SECRET.encode()).verify(request.body, request.headers)
    assert receiver.requests(first) == []
