"""Tenant isolation of the device routes: a plain user, the device list, and routes that name
their device only in ``X-Device-Id`` (the status, presence and profile routes).

Apart from ``test_tenant_isolation.py`` because these routes carry the device outside the
id table: in a list, or in a header rather than the path.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from isolation_steps import DEVICE_HEADER_ROUTES, new_device, tenant_records

pytestmark = pytest.mark.e2e


def test_plain_user_gets_404_for_another_tenants_device(api, envelope):
    # Given a plain user, and a device of another tenant
    mine = api.register()
    other = api.register()
    _, token = api.create_user(mine, "user")
    device_id = new_device(api, other.admin_token)
    # When the user reads or deletes that device
    # Then 404 DEVICE_NOT_FOUND, as for a device nobody has, and the device stays
    envelope(api.request("GET", f"/devices/{device_id}", token), 404, "DEVICE_NOT_FOUND")
    envelope(api.request("DELETE", f"/devices/{device_id}", token), 404, "DEVICE_NOT_FOUND")
    assert api.request("GET", f"/devices/{device_id}", other.admin_token).status_code == 200


def test_device_list_shows_only_the_callers_tenant(api):
    # Given two tenants with a device each
    first = api.register()
    second = api.register()
    first_device = new_device(api, first.admin_token)
    second_device = new_device(api, second.admin_token)
    # When the first admin lists devices, naming the other tenant in the query and headers
    response = api.request(
        "GET",
        "/devices",
        first.admin_token,
        params={"tenant_id": second.id},
        headers={"X-Tenant-Id": second.id},
    )
    # Then it sees its own device only
    assert response.status_code == 200, response.text
    assert [device["id"] for device in response.json()["devices"]] == [first_device]
    assert second_device not in response.text


HEADER_ROUTES = DEVICE_HEADER_ROUTES


@pytest.mark.parametrize("row", HEADER_ROUTES, ids=[f"{m} {p}" for m, p, _ in HEADER_ROUTES])
def test_another_tenants_device_cannot_be_named_in_the_device_header(
    api: Any, envelope: Any, row: Any
) -> None:
    # Given tenant A's device, and tenant B's admin with a device of its own
    method, path, body = row
    mine, other = api.register(), api.register()
    new_device(api, mine.admin_token)
    theirs = new_device(api, other.admin_token)
    before = tenant_records(api, other)
    # When A's admin names B's device in X-Device-Id
    response = api.request(method, path, mine.admin_token, json=body, headers={"X-Device-Id": theirs})
    # Then 404 DEVICE_NOT_FOUND, exactly as for a device nobody has, and B's records are as they were
    envelope(response, 404, "DEVICE_NOT_FOUND")
    unknown = api.request(
        method, path, mine.admin_token, json=body, headers={"X-Device-Id": str(uuid.uuid4())}
    )
    envelope(unknown, 404, "DEVICE_NOT_FOUND")
    assert tenant_records(api, other) == before
