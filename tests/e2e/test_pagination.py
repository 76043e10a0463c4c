"""Pagination over HTTP: GET /tenants, /users, /devices and /webhook/deliveries take ``limit``
and ``cursor`` and answer ``next``; a cursor is checked, never trusted."""

from __future__ import annotations

import base64
import json
import time
import uuid
from typing import Any

import pytest
from webhooks_steps import new_device

pytestmark = pytest.mark.e2e

LISTS = [
    ("/users", "users"),
    ("/devices", "devices"),
    ("/webhook/deliveries", "deliveries"),
]


def page(api: Any, path: str, token: str, **params: Any) -> dict[str, Any]:
    response = api.request("GET", path, token, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def forged(list_name: str, key: dict[str, str]) -> str:
    raw = json.dumps({"l": list_name, "k": key}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def log_attempts(device_id: str, tenant_id: str, count: int) -> list[str]:
    """``count`` failed attempts in the device's delivery log, written as the delivery function
    writes them, one millisecond apart; their event ids, oldest first."""
    from gateway.webhooks.catalog import EventName
    from gateway.webhooks.delivery.constants import EventStatus
    from gateway.webhooks.delivery.recorder import Attempted, write_log
    from gateway.webhooks.delivery.transport import AttemptResult
    from gateway.webhooks.events_queue import EventEnvelope, IncomingEvent

    attempts = []
    now = time.time()
    for index in range(count):
        event_id = uuid.uuid4().hex
        envelope = EventEnvelope(
            id=event_id, event=EventName.MESSAGE_RECEIVED, timestamp=int(now), device_id=device_id, data={}
        )
        incoming = IncomingEvent(
            envelope, tenant_id, attempt=1, redelivery=False, receipt_handle="", queue_url=""
        )
        result = AttemptResult(status_code=500, duration_ms=3, error="HTTP 500")
        attempts.append(
            Attempted(incoming, "https://hooks.example.com/", result, EventStatus.FAILED, now + index / 1000)
        )
    assert write_log(attempts) == []  # every attempt logged
    return [attempted.incoming.event_id for attempted in attempts]


# --- limit and next ---------------------------------------------------------------------


def test_users_come_in_pages_by_id_and_the_last_page_says_so(api):
    # Given a tenant with five users
    tenant = api.register()
    created = {tenant.admin_id} | {api.create_user(tenant, "user")[0] for _ in range(4)}
    # When they are listed two at a time
    found = api.pages("/users", tenant.admin_token, "users", limit=2)
    # Then three pages of 2, 2 and 1 hold each user once, ordered by id
    assert [len(items) for items in found] == [2, 2, 1]
    ids = [user["id"] for items in found for user in items]
    assert ids == sorted(created)


def test_a_list_that_fits_one_page_has_no_next(api):
    # Given a tenant with exactly two users
    tenant = api.register()
    api.create_user(tenant, "user")
    # When they are listed with a limit of two, and with the default limit
    exact = page(api, "/users", tenant.admin_token, limit=2)
    default = page(api, "/users", tenant.admin_token)
    # Then one page each, without a next page (never an empty last page)
    assert (len(exact["users"]), exact["next"]) == (2, None)
    assert (len(default["users"]), default["next"]) == (2, None)


def test_devices_come_in_pages_and_a_user_pages_through_its_own(api):
    # Given a tenant whose admin has three devices and whose user has three
    tenant = api.register()
    _, user_token = api.create_user(tenant, "user")
    admins = {new_device(api, tenant.admin_token) for _ in range(3)}
    users = {new_device(api, user_token) for _ in range(3)}
    # When the admin lists them four at a time, and the user two at a time
    as_admin = api.pages("/devices", tenant.admin_token, "devices", limit=4)
    as_user = api.pages("/devices", user_token, "devices", limit=2)
    # Then the admin sees all six in two pages, the user its own three in two, by id
    assert [len(items) for items in as_admin] == [4, 2]
    assert [device["id"] for items in as_admin for device in items] == sorted(admins | users)
    assert [len(items) for items in as_user] == [2, 1]
    assert [device["id"] for items in as_user for device in items] == sorted(users)


def test_deliveries_come_in_pages_newest_first(api):
    # Given a device with five attempts in its delivery log
    tenant = api.register()
    device_id = new_device(api, tenant.admin_token)
    logged = log_attempts(device_id, tenant.id, 5)
    # When the log is read two at a time, all of it and the failed ones only
    every = api.pages("/webhook/deliveries", tenant.admin_token, "deliveries", limit=2)
    failed = api.pages("/webhook/deliveries", tenant.admin_token, "deliveries", limit=2, status="failed")
    # Then pages of 2, 2 and 1, newest first, each attempt once
    for found in (every, failed):
        assert [len(items) for items in found] == [2, 2, 1]
        assert [item["id"] for items in found for item in items] == logged[::-1]


def test_tenants_come_in_pages_each_tenant_once(api):
    # Given a few more tenants on the platform
    registered = {api.register().id for _ in range(3)}
    # When every page is read, a few tenants at a time
    found = api.pages("/tenants", api.master_token, "tenants", limit=7)
    # Then every page but the last is full, and each tenant is listed exactly once
    assert all(len(items) == 7 for items in found[:-1])
    assert 1 <= len(found[-1]) <= 7
    ids = [tenant["id"] for items in found for tenant in items]
    assert len(ids) == len(set(ids))
    assert registered <= set(ids)


@pytest.mark.parametrize(("path", "key"), [*LISTS, ("/tenants", "tenants")])
@pytest.mark.parametrize("limit", [0, 201, "ten", -1])
def test_a_limit_out_of_range_is_refused(api, envelope, path, key, limit):
    # Given a caller with a device
    tenant = api.register()
    new_device(api, tenant.admin_token)
    token = api.master_token if key == "tenants" else tenant.admin_token
    # When a list is asked for with a limit outside 1 to 200
    response = api.request("GET", path, token, params={"limit": limit})
    # Then 400 VALIDATION_ERROR on limit
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in body["validation"]] == ["limit"]


# --- GET /tenants reads once per page ----------------------------------------------------


def test_one_page_of_tenants_is_one_read_whatever_their_number(api, dynamodb_calls):
    # Given tenants with users and devices (and every tenant of the run before them)
    for _ in range(3):
        tenant = api.register()
        api.create_user(tenant, "user")
        new_device(api, tenant.admin_token)
    first = page(api, "/tenants", api.master_token, limit=2)
    # When the next pages are read, one at a time, with the DynamoDB calls counted
    cursor = first["next"]
    for _ in range(3):
        dynamodb_calls.reset()
        body = page(api, "/tenants", api.master_token, limit=2, cursor=cursor)
        # Then each page is exactly one Scan of the tenants table, counts included
        assert dynamodb_calls.calls == [("Scan", dynamodb_calls.calls[0][1])], dynamodb_calls.calls
        assert dynamodb_calls.calls[0][1].endswith("TenantsTable")
        assert all({"users_count", "devices_count"} <= set(tenant) for tenant in body["tenants"])
        cursor = body["next"]
    # And a full page of 200 is one Scan too
    dynamodb_calls.reset()
    page(api, "/tenants", api.master_token, limit=200)
    assert dynamodb_calls.by_operation() == {("Scan", dynamodb_calls.calls[0][1]): 1}


# --- cursors are checked ----------------------------------------------------------------


@pytest.mark.parametrize(
    "cursor",
    [
        "not a cursor",
        "%%%",
        base64.urlsafe_b64encode(b"not json").decode(),
        base64.urlsafe_b64encode(b"[1, 2]").decode(),
        forged("users", {"tenant_id": "x"}),
        forged("users", {"tenant_id": "x", "user_id": "y", "extra": "z"}),
        forged("users", {"tenant_id": 1, "user_id": 2}),
        "x" * 1025,
    ],
    ids=["spaces", "symbols", "not-json", "not-an-object", "missing-key", "extra-key", "numbers", "too-long"],
)
def test_a_tampered_cursor_is_a_validation_error(api, envelope, cursor):
    # Given an admin
    tenant = api.register()
    # When it lists users with a cursor the gateway never issued
    response = api.request("GET", "/users", tenant.admin_token, params={"cursor": cursor})
    # Then 400 VALIDATION_ERROR on cursor, never a 500
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in body["validation"]] == ["cursor"]


def test_a_cursor_of_another_tenant_is_refused(api, envelope):
    # Given two tenants of three users, and a cursor into the first one's users
    mine, theirs = api.register(), api.register()
    for tenant in (mine, theirs):
        api.create_user(tenant, "user")
        api.create_user(tenant, "user")
    cursor = page(api, "/users", mine.admin_token, limit=1)["next"]
    # When the other tenant's admin sends it, or a cursor forged with the first tenant's key
    copied = api.request("GET", "/users", theirs.admin_token, params={"cursor": cursor})
    key = {"tenant_id": mine.id, "user_id": mine.admin_id}
    forged_key = api.request("GET", "/users", theirs.admin_token, params={"cursor": forged("users", key)})
    # Then both are refused, and nothing of the first tenant is shown
    for response in (copied, forged_key):
        envelope(response, 400, "VALIDATION_ERROR")
        assert mine.id not in response.text


def test_a_cursor_of_another_device_or_list_is_refused(api, envelope):
    # Given a tenant with two devices, each with three logged attempts
    tenant = api.register()
    first, second = new_device(api, tenant.admin_token), new_device(api, tenant.admin_token)
    log_attempts(first, tenant.id, 3)
    log_attempts(second, tenant.id, 3)
    on_first = {"X-Device-Id": first}
    on_second = {"X-Device-Id": second}
    cursor = api.request(
        "GET", "/webhook/deliveries", tenant.admin_token, params={"limit": 1}, headers=on_first
    ).json()["next"]
    devices_cursor = page(api, "/devices", tenant.admin_token, limit=1)["next"]
    # When the first device's cursor is sent for the second, and a devices cursor for deliveries
    other_device = api.request(
        "GET", "/webhook/deliveries", tenant.admin_token, params={"cursor": cursor}, headers=on_second
    )
    other_list = api.request(
        "GET", "/webhook/deliveries", tenant.admin_token, params={"cursor": devices_cursor}, headers=on_first
    )
    users_cursor = api.request("GET", "/users", tenant.admin_token, params={"cursor": devices_cursor})
    # Then each is refused with 400 VALIDATION_ERROR on cursor
    for response in (other_device, other_list, users_cursor):
        body = envelope(response, 400, "VALIDATION_ERROR")
        assert [item["field"] for item in body["validation"]] == ["cursor"]
    # And the right cursor, on its own device, still reads the next page
    right = api.request(
        "GET", "/webhook/deliveries", tenant.admin_token, params={"cursor": cursor}, headers=on_first
    )
    assert right.status_code == 200, right.text
    assert len(right.json()["deliveries"]) == 2


def test_a_delivery_cursor_outside_the_attempts_is_refused(api, envelope):
    # Given a device, and a cursor forged with the key of its event record (not an attempt)
    tenant = api.register()
    device_id = new_device(api, tenant.admin_token)
    cursor = forged("deliveries", {"device_id": device_id, "delivery_key": "event#abc"})
    # When the delivery log is read from it
    response = api.request("GET", "/webhook/deliveries", tenant.admin_token, params={"cursor": cursor})
    # Then 400 VALIDATION_ERROR, not a DynamoDB error
    envelope(response, 400, "VALIDATION_ERROR")
