"""Custom webhook header values are write-only, like the secret: responses show the names with
the values masked, and deliveries carry the real values, kept across updates."""

from __future__ import annotations

from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr
from webhook_receiver import Receiver

pytestmark = pytest.mark.e2e

MASK = "***"
HEADERS = {"Authorization": "Bearer receiver-token-7f3a", "X-Tenant-Ref": "acme-42"}


def post_webhook(api: Any, token: str, device_id: str, **body: Any) -> Any:
    return api.request("POST", "/webhook", token, json=body, headers={"X-Device-Id": device_id})


def test_header_values_are_never_shown(api):
    # Given a device
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    body = {"webhook_url": "https://hooks.example.com/in", "enabled_events": ["message"], "headers": HEADERS}
    # When it is configured with custom headers, and the configuration is read
    created = post_webhook(api, tenant.admin_token, device_id, **body)
    read = api.request("GET", "/webhook", tenant.admin_token, headers={"X-Device-Id": device_id})
    # Then both show every header name, each value masked, and no value anywhere
    for response in (created, read):
        assert response.status_code in (200, 201), response.text
        assert response.json()["webhook"]["headers"] == {"Authorization": MASK, "X-Tenant-Ref": MASK}
        for value in HEADERS.values():
            assert value not in response.text


def test_updates_keep_the_real_values_and_deliveries_carry_them(api, receiver: Receiver):
    # Given a device configured with custom headers, at a receiver
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    path = receiver.path()
    url = receiver.url(path)
    first = post_webhook(
        api, tenant.admin_token, device_id, webhook_url=url, enabled_events=["message"], headers=HEADERS
    )
    assert first.status_code == 201, first.text
    # When an update leaves the headers out
    omitted = post_webhook(api, tenant.admin_token, device_id, webhook_url=url, enabled_events=["message"])
    assert omitted.status_code == 200, omitted.text
    # And another posts back the configuration as read (masked values), with one header
    # changed and one added
    shown = omitted.json()["webhook"]
    headers = {**shown["headers"], "X-Tenant-Ref": "acme-43", "X-Extra": "yes"}
    body = {"webhook_url": url, "enabled_events": ["device.connected"], "headers": headers}
    updated = post_webhook(api, tenant.admin_token, device_id, **body)
    assert updated.status_code == 200, updated.text
    assert updated.json()["webhook"]["headers"] == {
        "Authorization": MASK,
        "X-Tenant-Ref": MASK,
        "X-Extra": MASK,
    }
    # When the device connects
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    # Then device.connected reaches the receiver with the real values: the kept one, the
    # changed one and the added one
    (request, *_) = receiver.wait_for(path, lambda found: len(found) >= 1)
    assert request.envelope["event"] == "device.connected"
    assert request.headers["authorization"] == HEADERS["Authorization"]
    assert request.headers["x-tenant-ref"] == "acme-43"
    assert request.headers["x-extra"] == "yes"


def test_a_mask_for_a_header_that_is_not_stored_is_refused(api, envelope):
    # Given a device configured without custom headers
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    body = {"webhook_url": "https://hooks.example.com/in", "enabled_events": ["message"]}
    assert post_webhook(api, tenant.admin_token, device_id, **body).status_code == 201
    # When an update sends the mask as the value of a new header
    response = post_webhook(api, tenant.admin_token, device_id, **body, headers={"Authorization": MASK})
    # Then 400 VALIDATION_ERROR on that header, and nothing is stored
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["headers.Authorization"]
    read = api.request("GET", "/webhook", tenant.admin_token, headers={"X-Device-Id": device_id})
    assert read.json()["webhook"]["headers"] == {}
