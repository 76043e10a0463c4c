"""Changing devices over HTTP without a session host: deletion, the send spacing, refused pair requests."""

from __future__ import annotations

import pytest
from devices_steps import DEVICE_FIELDS, create_device, listed_ids

pytestmark = pytest.mark.e2e

INSUFFICIENT_PERMISSIONS = {"error": "Insufficient permissions"}


# --- DELETE /devices/{id} --------------------------------------------------------------


@pytest.mark.parametrize("deleter", ["owner", "admin"])
def test_owner_or_admin_deletes_a_device_that_never_connected(api, envelope, deleter):
    # Given a device of a plain user that never connected (no session host is involved)
    tenant = api.register()
    _, owner_token = api.create_user(tenant, "user")
    device = create_device(api, owner_token)
    kept = create_device(api, owner_token)
    token = owner_token if deleter == "owner" else tenant.admin_token
    # When the owner or an admin deletes it
    response = api.request("DELETE", f"/devices/{device['id']}", token)
    # Then 200 with the deleted device's id
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "message": "device deleted", "device_id": device["id"]}
    # And it is gone for everyone, and the other device stays
    envelope(api.request("GET", f"/devices/{device['id']}", tenant.admin_token), 404, "DEVICE_NOT_FOUND")
    assert listed_ids(api, owner_token) == [kept["id"]]
    # And deleting it again is 404
    envelope(api.request("DELETE", f"/devices/{device['id']}", token), 404, "DEVICE_NOT_FOUND")


def test_manager_deletes_its_own_device_but_not_another_users(api):
    # Given a manager with a device, and a device of a plain user
    tenant = api.register()
    _, manager_token = api.create_user(tenant, "manager")
    _, user_token = api.create_user(tenant, "user")
    own = create_device(api, manager_token)
    others = create_device(api, user_token)
    # When the manager deletes the user's device
    refused = api.request("DELETE", f"/devices/{others['id']}", manager_token)
    # Then 403 Insufficient permissions, and the device stays
    assert refused.status_code == 403, refused.text
    assert refused.json() == INSUFFICIENT_PERMISSIONS
    assert listed_ids(api, user_token) == [others["id"]]
    # When the manager deletes its own device
    deleted = api.request("DELETE", f"/devices/{own['id']}", manager_token)
    # Then it is deleted
    assert deleted.status_code == 200, deleted.text
    assert listed_ids(api, manager_token) == [others["id"]]


def test_device_counts_of_a_tenant_follow_creation_and_deletion(api):
    # Given a tenant with two devices, one of which is then deleted
    tenant = api.register()
    create_device(api, tenant.admin_token)
    doomed = create_device(api, tenant.admin_token)
    api.request("DELETE", f"/devices/{doomed['id']}", tenant.admin_token)
    # When the platform reads the tenant
    response = api.request("GET", f"/global/tenants/{tenant.id}", api.master_token)
    # Then one device is counted
    assert response.json()["tenant"]["devices_count"] == 1


# --- commands that are refused before any session host is asked -------------------------


@pytest.mark.parametrize(
    "phone",
    [
        "+15551234567",
        "555-1234",
        "+49 151-2345 678",
        " 15551234567",
        "123456",
        "1234567890123456",
        "05551234567",
        "\uff11\uff15\uff15\uff15\uff11\uff12\uff13\uff14",
        "",
        15551234567,
    ],
    ids=[
        "plus",
        "dashes",
        "separators",
        "space",
        "too short",
        "too long",
        "leading zero",
        "fullwidth digits",
        "empty",
        "number",
    ],
)
def test_pair_phone_needs_a_plain_phone_number(api, envelope, phone):
    # Given a device
    tenant = api.register()
    device = create_device(api, tenant.admin_token)
    # When a pair code is asked for a phone that is not 7 to 15 digits with the country code
    response = api.request(
        "POST", f"/devices/{device['id']}/pair-phone", tenant.admin_token, json={"phone": phone}
    )
    # Then 400 VALIDATION_ERROR on phone
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["phone"]


def test_pair_phone_without_a_body_is_refused(api, envelope):
    tenant = api.register()
    device = create_device(api, tenant.admin_token)
    response = api.request("POST", f"/devices/{device['id']}/pair-phone", tenant.admin_token)
    envelope(response, 400, "INVALID_JSON")


# --- PATCH /devices/{id} ---------------------------------------------------------------


@pytest.mark.parametrize("changer", ["owner", "admin", "manager"])
def test_owner_admin_and_manager_set_the_send_spacing(api, changer):
    # Given a plain user's device, shown without spacing
    tenant = api.register()
    _, owner_token = api.create_user(tenant, "user")
    created = api.request("POST", "/devices", owner_token, json={}).json()["device"]
    assert created["min_send_interval_seconds"] == 0
    token = {
        "owner": owner_token,
        "admin": tenant.admin_token,
        "manager": api.create_user(tenant, "manager")[1],
    }[changer]

    # When the changer sets it
    response = api.request(
        "PATCH", f"/devices/{created['id']}", token, json={"min_send_interval_seconds": 600}
    )

    # Then the device is answered with it, and shown with it from then on
    assert response.status_code == 200, response.text
    device = response.json()["device"]
    assert set(device) == DEVICE_FIELDS
    assert device["min_send_interval_seconds"] == 600
    assert device["updated_at"] >= created["updated_at"]
    shown = api.request("GET", f"/devices/{created['id']}", owner_token).json()["device"]
    listed = api.request("GET", "/devices", tenant.admin_token).json()["devices"]
    assert shown["min_send_interval_seconds"] == 600
    assert [d["min_send_interval_seconds"] for d in listed if d["id"] == created["id"]] == [600]


def test_another_plain_user_cannot_set_the_send_spacing(api, envelope):
    # Given two plain users of a tenant, one with a device
    tenant = api.register()
    _, owner_token = api.create_user(tenant, "user")
    _, other_token = api.create_user(tenant, "user")
    device_id = api.request("POST", "/devices", owner_token, json={}).json()["device"]["id"]
    # When the other user changes it: 404, as for every route of a device it cannot see
    response = api.request(
        "PATCH", f"/devices/{device_id}", other_token, json={"min_send_interval_seconds": 1}
    )
    envelope(response, 404, "DEVICE_NOT_FOUND")
    shown = api.request("GET", f"/devices/{device_id}", owner_token).json()["device"]
    assert shown["min_send_interval_seconds"] == 0


@pytest.mark.parametrize(
    "body",
    [
        {"min_send_interval_seconds": -1},
        {"min_send_interval_seconds": 601},
        {"min_send_interval_seconds": "2"},
        {"min_send_interval_seconds": 1.5},
        {"min_send_interval_seconds": True},
    ],
)
def test_send_spacing_is_a_whole_number_of_seconds_up_to_600(api, envelope, body):
    tenant = api.register()
    device_id = api.request("POST", "/devices", tenant.admin_token, json={}).json()["device"]["id"]
    response = api.request("PATCH", f"/devices/{device_id}", tenant.admin_token, json=body)
    error = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in error["validation"]] == ["min_send_interval_seconds"]


def test_patch_changes_only_the_settings_it_gives(api):
    # Given a device with a name, a send spacing and call rejection with a message
    tenant = api.register()
    device = create_device(api, tenant.admin_token, name="Front desk")
    path = f"/devices/{device['id']}"
    first = {
        "min_send_interval_seconds": 5,
        "reject_calls": True,
        "reject_calls_message": "  Write, please.  ",
    }
    assert api.request("PATCH", path, tenant.admin_token, json=first).status_code == 200
    # When only the name changes
    renamed = api.request("PATCH", path, tenant.admin_token, json={"name": "Reception"})
    # Then the name changed and every other setting kept its value
    assert renamed.status_code == 200, renamed.text
    shown = api.request("GET", path, tenant.admin_token).json()["device"]
    assert renamed.json()["device"] == shown
    assert (shown["name"], shown["min_send_interval_seconds"]) == ("Reception", 5)
    assert (shown["reject_calls"], shown["reject_calls_message"]) == (True, "Write, please.")
    # When the message is removed (null) and the spacing left out as null
    cleared = api.request(
        "PATCH",
        path,
        tenant.admin_token,
        json={"reject_calls_message": None, "min_send_interval_seconds": None},
    )
    # Then only the message is gone
    device = cleared.json()["device"]
    assert (device["reject_calls"], device["reject_calls_message"]) == (True, None)
    assert device["min_send_interval_seconds"] == 5


@pytest.mark.parametrize("body", [{}, {"min_send_interval_seconds": None}, {"unknown": 1}])
def test_patch_without_any_setting_is_refused(api, envelope, body):
    # Given a device
    tenant = api.register()
    device = create_device(api, tenant.admin_token)
    # When a PATCH gives no setting (only nulls of settings that cannot be removed, or unknown fields)
    response = api.request("PATCH", f"/devices/{device['id']}", tenant.admin_token, json=body)
    # Then 400 on the body, naming the settings, and the device is as it was
    error = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in error["validation"]] == ["body"]
    assert "proxy_url" in error["error"]
    shown = api.request("GET", f"/devices/{device['id']}", tenant.admin_token).json()["device"]
    assert shown["updated_at"] == device["updated_at"]


BAD_PROXIES = [
    "ftp://127.0.0.1:21",
    "127.0.0.1:1080",
    "http://127.0.0.1",
    "http://127.0.0.1:1080/path",
    "http://127.0.0.1:1080?x=1",
    "http://:s3cret@127.0.0.1:1080",
    "http://bad host:1080",
    "socks5://127.0.0.1:99999",
    "",
    8080,
]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"reject_calls": "yes"}, "reject_calls"),
        ({"reject_calls_message": "   "}, "reject_calls_message"),
        ({"reject_calls_message": "x" * 4097}, "reject_calls_message"),
        *[({"proxy_url": proxy_url, "name": "Kept"}, "proxy_url") for proxy_url in BAD_PROXIES],
    ],
)
def test_patch_checks_each_setting_and_changes_nothing_when_one_is_wrong(api, envelope, body, field):
    # Given a device
    tenant = api.register()
    device = create_device(api, tenant.admin_token)
    # When a PATCH gives a wrong value (next to a right one)
    response = api.request("PATCH", f"/devices/{device['id']}", tenant.admin_token, json=body)
    # Then 400 on that field, a proxy's password is never echoed, and nothing changed
    error = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in error["validation"]] == [field]
    assert "s3cret" not in response.text
    shown = api.request("GET", f"/devices/{device['id']}", tenant.admin_token).json()["device"]
    assert shown == device


def test_proxy_is_shown_without_its_password_and_null_removes_it(api):
    # Given a device
    tenant = api.register()
    device = create_device(api, tenant.admin_token)
    path = f"/devices/{device['id']}"
    # When its proxy is set with credentials
    response = api.request(
        "PATCH", path, tenant.admin_token, json={"proxy_url": " socks5://alice:s3cret@127.0.0.1:1080 "}
    )
    # Then every view shows it with the password as ***, and no answer carries the password
    assert response.status_code == 200, response.text
    redacted = "socks5://alice:***@127.0.0.1:1080"
    assert response.json()["device"]["proxy_url"] == redacted
    shown = api.request("GET", path, tenant.admin_token)
    listed = api.request("GET", "/devices", tenant.admin_token)
    assert shown.json()["device"]["proxy_url"] == redacted
    assert [d["proxy_url"] for d in listed.json()["devices"]] == [redacted]
    assert all("s3cret" not in r.text for r in (response, shown, listed))
    # When it is set to null
    removed = api.request("PATCH", path, tenant.admin_token, json={"proxy_url": None})
    # Then the device has no proxy
    assert removed.json()["device"]["proxy_url"] is None
