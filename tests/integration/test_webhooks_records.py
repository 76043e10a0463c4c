"""Webhook records on the local stack's DynamoDB (moto): the pending URL applied once per device,
and configurations and delivery logs deleted with their device and with their tenant.

Users, devices and configurations are made over HTTP as a client would; the pending URL is
then applied by calling ``apply_pending_webhook`` directly, as the delivery function does for
a ``device.connected`` event, so every rule can be checked without pairing a phone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from gateway.config import get_settings
from gateway.devices import store as device_store
from gateway.errors import ApiError
from gateway.models import DeliveryModel, DeviceModel
from gateway.webhooks import pending, service
from gateway.webhooks.catalog import CATALOG
from gateway.webhooks.pending import apply_pending_webhook
from gateway.webhooks.schemas import WebhookRequest
from gateway.webhooks.store import get_config

URL = "https://hooks.example.com/pending"


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register(webhook_url=URL)


def new_device(api: Any, token: str) -> str:
    response = api.request("POST", "/devices", token, json={})
    assert response.status_code == 201, response.text
    return response.json()["device"]["id"]


def settled(tenant_id: str, device_id: str) -> bool:
    return DeviceModel.get(tenant_id, device_id, consistent_read=True).pending_webhook_settled_at is not None


def log_event(tenant_id: str, device_id: str, event_id: str) -> None:
    """A delivery log entry (event and attempt items) as the delivery function writes them."""
    now = time.time()
    common = {"tenant_id": tenant_id, "event_id": event_id, "event": "device.connected", "status": "failed"}
    expires = int(now) + 3600
    DeliveryModel(device_id, f"event#{event_id}", envelope="{}", expires_at=expires, **common).save()
    DeliveryModel(
        device_id, f"attempt#{int(now * 1000):013d}#{event_id}#01", expires_at=expires, **common
    ).save()


def log_items(device_id: str) -> list[DeliveryModel]:
    return list(DeliveryModel.query(device_id, consistent_read=True))


@pytest.fixture
def deployed_without_http() -> Iterator[None]:
    """Settings of a deployment outside local mode that refuses plain HTTP."""
    saved = {name: os.environ.get(name) for name in ("GATEWAY_LOCAL_MODE", "ALLOW_HTTP_WEBHOOKS")}
    os.environ.update(GATEWAY_LOCAL_MODE="false", ALLOW_HTTP_WEBHOOKS="false")
    get_settings.cache_clear()
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    get_settings.cache_clear()


# --- the pending URL ----------------------------------------------------------------------


def test_pending_url_is_applied_once_with_every_catalog_event(api, tenant):
    # Given the admin's pending URL and a new device of the admin
    device_id = new_device(api, tenant.admin_token)
    # When the device first connects
    config = apply_pending_webhook(tenant.id, device_id)
    # Then it gets a configuration for that URL, every catalog event, the defaults, no secret
    assert config is not None
    stored = get_config(tenant.id, device_id)
    assert stored is not None
    assert (stored.webhook_url, set(stored.enabled_events)) == (URL, set(CATALOG))
    assert (stored.enabled, stored.retry_attempts, stored.timeout, stored.secret) == (True, 3, 10, None)
    assert settled(tenant.id, device_id)
    # When it connects again
    # Then nothing more happens
    assert apply_pending_webhook(tenant.id, device_id) is None
    assert get_config(tenant.id, device_id).webhook_id == stored.webhook_id


def test_a_deleted_configuration_is_not_brought_back(api, tenant):
    # Given a device that got the pending URL and whose configuration was then deleted
    device_id = new_device(api, tenant.admin_token)
    assert apply_pending_webhook(tenant.id, device_id) is not None
    assert api.request("DELETE", "/webhook", tenant.admin_token).status_code == 200
    # When it connects again
    # Then it stays without a configuration
    assert apply_pending_webhook(tenant.id, device_id) is None
    assert get_config(tenant.id, device_id) is None


def test_a_url_set_after_the_first_connection_applies_to_new_devices_only(api):
    # Given a device that connected while its owner had no pending URL
    tenant = api.register()
    first = new_device(api, tenant.admin_token)
    assert apply_pending_webhook(tenant.id, first) is None
    assert settled(tenant.id, first)
    # When the owner sets a pending URL afterwards
    response = api.request("POST", "/user/webhook", tenant.admin_token, json={"webhook_url": URL})
    assert response.status_code == 200, response.text
    second = new_device(api, tenant.admin_token)
    # Then the device that connected before does not get it at its next connection; a new one does
    assert apply_pending_webhook(tenant.id, first) is None
    assert apply_pending_webhook(tenant.id, second) is not None


def test_a_device_configured_before_its_first_connection_keeps_its_configuration(api, tenant):
    # Given a device configured with POST /webhook before it ever connected
    device_id = new_device(api, tenant.admin_token)
    body = {"webhook_url": "https://own.example.com/", "enabled_events": ["message"]}
    assert api.request("POST", "/webhook", tenant.admin_token, json=body).status_code == 201
    # When it connects
    # Then the pending URL is not applied, not even after its own configuration is deleted
    assert settled(tenant.id, device_id)
    assert apply_pending_webhook(tenant.id, device_id) is None
    assert get_config(tenant.id, device_id).webhook_url == "https://own.example.com/"
    api.request("DELETE", "/webhook", tenant.admin_token)
    assert apply_pending_webhook(tenant.id, device_id) is None


def test_only_the_owners_pending_url_applies(api, tenant):
    # Given an admin with a pending URL, and a user of the tenant without one
    _, user_token = api.create_user(tenant, "user")
    device_id = new_device(api, user_token)
    # When the user's device connects
    # Then it gets no configuration
    assert apply_pending_webhook(tenant.id, device_id) is None
    assert get_config(tenant.id, device_id) is None


def test_a_deleted_device_gets_nothing(api, tenant):
    # Given a device deleted before its connection event is handled
    device_id = new_device(api, tenant.admin_token)
    assert api.request("DELETE", f"/devices/{device_id}", tenant.admin_token).status_code == 200
    # When the event is handled
    # Then no configuration is created for it
    assert apply_pending_webhook(tenant.id, device_id) is None
    assert get_config(tenant.id, device_id) is None


def test_concurrent_connections_apply_the_url_once(api, tenant):
    # Given a new device whose device.connected is handled by eight workers at once
    device_id = new_device(api, tenant.admin_token)
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: apply_pending_webhook(tenant.id, device_id), range(8)))
    # Then exactly one created the configuration, and it is the stored one
    created = [config for config in results if config is not None]
    assert len(created) == 1
    assert get_config(tenant.id, device_id).webhook_id == created[0].webhook_id


def test_a_url_the_deployment_refuses_is_not_applied(api, request):
    # Given a pending URL stored as plain HTTP while the deployment allowed it
    tenant = api.register(webhook_url="http://hooks.example.com/plain")
    device_id = new_device(api, tenant.admin_token)
    # And the deployment now allows HTTPS only
    request.getfixturevalue("deployed_without_http")
    # When the device first connects
    # Then no configuration is created, and the device is settled
    assert apply_pending_webhook(tenant.id, device_id) is None
    assert get_config(tenant.id, device_id) is None
    assert settled(tenant.id, device_id)


# --- deletion -----------------------------------------------------------------------------


def test_deleting_a_device_deletes_its_configuration_and_delivery_log(api, tenant):
    # Given a configured device with a delivery log, and a second device of the same tenant
    device_id = new_device(api, tenant.admin_token)
    kept = new_device(api, tenant.admin_token)
    body = {"webhook_url": "https://own.example.com/", "enabled_events": ["message"]}
    for device in (device_id, kept):
        headers = {"X-Device-Id": device}
        assert (
            api.request("POST", "/webhook", tenant.admin_token, json=body, headers=headers).status_code == 201
        )
        log_event(tenant.id, device, f"{device[:8]}0000000000000000000000aa")
    # When the first device is deleted
    response = api.request("DELETE", f"/devices/{device_id}", tenant.admin_token)
    assert response.status_code == 200, response.text
    # Then its configuration and log are gone, and the other device's are untouched
    assert get_config(tenant.id, device_id) is None
    assert log_items(device_id) == []
    assert get_config(tenant.id, kept) is not None
    assert len(log_items(kept)) == 2


def test_deleting_a_tenant_deletes_its_configurations_and_delivery_logs(api):
    # Given a tenant with three devices, two of them configured and with a delivery log
    tenant = api.register()
    devices = [new_device(api, tenant.admin_token) for _ in range(3)]
    body = {"webhook_url": "https://own.example.com/", "enabled_events": ["message"]}
    for device in devices[:2]:
        headers = {"X-Device-Id": device}
        assert (
            api.request("POST", "/webhook", tenant.admin_token, json=body, headers=headers).status_code == 201
        )
        log_event(tenant.id, device, f"{device[:8]}0000000000000000000000bb")
    # When the platform deletes the tenant
    response = api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token)
    # Then the answer counts the configurations, and none of them or of the logs is left
    assert response.status_code == 200, response.text
    assert response.json()["deleted"] == {"users": 1, "devices": 3, "webhooks": 2}
    for device in devices:
        assert get_config(tenant.id, device) is None
        assert log_items(device) == []


# --- concurrent configuration -------------------------------------------------------------


def test_concurrent_posts_create_one_configuration(api):
    # Given a device without a configuration
    tenant = api.register()
    new_device(api, tenant.admin_token)

    def post(index: int) -> Any:
        body = {"webhook_url": f"https://hooks.example.com/{index}", "enabled_events": ["message"]}
        return api.request("POST", "/webhook", tenant.admin_token, json=body)

    # When six clients configure it at the same time
    with ThreadPoolExecutor(6) as pool:
        responses = list(pool.map(post, range(6)))
    # Then one created it and the others updated that same configuration
    assert sorted(response.status_code for response in responses) == [200] * 5 + [201]
    assert len({response.json()["webhook"]["id"] for response in responses}) == 1


# --- a device deleted while its configuration is written ----------------------------------


@pytest.mark.parametrize("settled_before", [False, True], ids=["first configuration", "settled device"])
def test_configuring_a_device_deleted_meanwhile_leaves_nothing_behind(api, settled_before):
    # Given a device as the request read it, deleted right after (by another request)
    tenant = api.register()
    device_id = new_device(api, tenant.admin_token)
    if settled_before:
        assert apply_pending_webhook(tenant.id, device_id) is None  # no pending URL: settles it
    as_read = DeviceModel.get(tenant.id, device_id, consistent_read=True)
    assert api.request("DELETE", f"/devices/{device_id}", tenant.admin_token).status_code == 200
    # When the configuration is written for it
    body = WebhookRequest(webhook_url="https://hooks.example.com/", enabled_events=["message"])
    with pytest.raises(ApiError) as raised:
        service.configure(as_read, body)
    # Then 404 DEVICE_NOT_FOUND, and no configuration is left
    assert (raised.value.status, raised.value.code) == (404, "DEVICE_NOT_FOUND")
    assert get_config(tenant.id, device_id) is None


def test_a_pending_url_applied_to_a_device_deleted_meanwhile_leaves_nothing_behind(api, tenant, monkeypatch):
    # Given a device read by the pending step, then deleted before its configuration is written
    device_id = new_device(api, tenant.admin_token)
    as_read = DeviceModel.get(tenant.id, device_id, consistent_read=True)
    assert api.request("DELETE", f"/devices/{device_id}", tenant.admin_token).status_code == 200
    reads, read_now = iter([as_read]), device_store.get_device
    monkeypatch.setattr(pending.device_store, "get_device", lambda *key: next(reads, None) or read_now(*key))
    # When the pending URL is applied
    # Then nothing is applied, and no configuration is left
    assert apply_pending_webhook(tenant.id, device_id) is None
    assert get_config(tenant.id, device_id) is None
