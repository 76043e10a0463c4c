"""The pending webhook URL of a user (POST /register, POST /users, POST /user/webhook), applied
with every catalog event when the user's new device first connects, through the real path:
pairing → device.connected → delivery worker → the configuration is created and that very
event delivered."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, subscribe
from webhooks_steps import wait_until

from gateway.webhooks.catalog import CATALOG

pytestmark = pytest.mark.e2e


def applied_config(api: Any, token: str) -> dict[str, Any]:
    """The device's configuration once the delivery worker created it."""
    response = wait_until(
        lambda: (found := api.request("GET", "/webhook", token)).status_code == 200 and found
    )
    return response.json()["webhook"]


def assert_pending_config(config: dict[str, Any], url: str) -> None:
    assert config["webhook_url"] == url
    assert config["enabled_events"] == list(CATALOG)
    assert (config["enabled"], config["retry_attempts"], config["timeout"]) == (True, 3, 10)
    assert config["has_secret"] is False
    assert config["headers"] == {}


def test_register_url_is_applied_when_the_first_device_connects(api, receiver):
    # Given a tenant registered with a webhook URL
    path = receiver.path()
    tenant = api.register(webhook_url=receiver.url(path))
    device_id = create_device(api, tenant.admin_token)
    # When the admin's new device connects for the first time
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    # Then the device has a configuration for that URL with every catalog event
    assert_pending_config(applied_config(api, tenant.admin_token), receiver.url(path))
    # And the device.connected that applied it reached the receiver
    requests = receiver.wait_for(
        path, lambda found: any(r.envelope["event"] == "device.connected" for r in found)
    )
    assert {r.envelope["device_id"] for r in requests} == {device_id}


@pytest.mark.parametrize("source", ["POST /users", "POST /user/webhook"])
def test_a_users_pending_url_applies_to_that_users_device(api, receiver, source):
    # Given a user whose pending URL was set when it was created, or by itself later
    tenant = api.register()
    path = receiver.path()
    url = receiver.url(path)
    body = {"email": f"u-{uuid.uuid4().hex[:8]}@example.com", "password": "secret123", "role": "user"}
    if source == "POST /users":
        body["webhook_url"] = url
    created = api.request("POST", "/users", tenant.admin_token, json=body)
    assert created.status_code == 201, created.text
    token = created.json()["user"]["token"]
    if source == "POST /user/webhook":
        assert api.request("POST", "/user/webhook", token, json={"webhook_url": url}).status_code == 200
    device_id = create_device(api, token)
    # When the user's device connects for the first time
    pair_by_qr(api, token, device_id, new_phone())
    # Then it is configured with that URL and every catalog event
    assert_pending_config(applied_config(api, token), url)
    receiver.wait_for(path, lambda found: any(r.envelope["device_id"] == device_id for r in found))


def test_a_device_configured_before_it_connects_keeps_its_own_configuration(api, receiver):
    # Given a tenant registered with a webhook URL, and a device configured before connecting
    pending_path, own_path = receiver.path(), receiver.path()
    tenant = api.register(webhook_url=receiver.url(pending_path))
    device_id = create_device(api, tenant.admin_token)
    own = subscribe(
        api, tenant.admin_token, device_id, receiver.url(own_path), enabled_events=["device.connected"]
    )
    # When it connects for the first time
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    # Then device.connected goes to its own URL, and its configuration is unchanged
    receiver.wait_for(own_path, lambda found: len(found) == 1)
    assert api.request("GET", "/webhook", tenant.admin_token).json()["webhook"] == own
    assert receiver.requests(pending_path) == []
