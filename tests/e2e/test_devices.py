"""Devices over HTTP: creation, listing, reading and deletion, who may do what, and validation.

None of these needs a session host: a device that never connected is created, read and
deleted from its record alone. The commands that reach a host (connect, QR, pairing,
disconnect, logout, deleting a running device) are in ``tests/integration/test_device_commands.py``.
"""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.e2e

INVALID_TOKEN = {"error": "Invalid token"}
INSUFFICIENT_PERMISSIONS = {"error": "Insufficient permissions"}
DEVICE_FIELDS = {
    "id",
    "tenant_id",
    "owner_user_id",
    "name",
    "status",
    "is_connected",
    "is_logged_in",
    "messaging_jid",
    "min_send_interval_seconds",
    "created_at",
    "updated_at",
}
SUMMARY_FIELDS = {"id", "name", "status", "is_connected", "is_logged_in", "messaging_jid"}


def create_device(api, token: str, **body: object) -> dict[str, object]:
    response = api.request("POST", "/devices", token, json=body)
    assert response.status_code == 201, response.text
    return response.json()["device"]


def listed_ids(api, token: str) -> list[str]:
    response = api.request("GET", "/devices", token)
    assert response.status_code == 200, response.text
    return [device["id"] for device in response.json()["devices"]]


# --- POST /devices ----------------------------------------------------------------------


def test_created_device_is_owned_by_the_caller_and_not_ready(api, is_uuid4, is_rfc3339_utc):
    # Given a plain user of a tenant
    tenant = api.register()
    user_id, token = api.create_user(tenant, "user")
    # When it creates a device with a name
    response = api.request("POST", "/devices", token, json={"name": "Sales phone"})
    # Then 201 with the device: owned by the caller, in its tenant, not connected, never paired
    assert response.status_code == 201, response.text
    data = response.json()
    assert set(data) == {"success", "device"}
    assert data["success"] is True
    device = data["device"]
    assert set(device) == DEVICE_FIELDS
    assert is_uuid4(device["id"])
    assert device["tenant_id"] == tenant.id
    assert device["owner_user_id"] == user_id
    assert device["name"] == "Sales phone"
    assert device["status"] == "not_ready"
    assert device["is_connected"] is False
    assert device["is_logged_in"] is False
    assert device["messaging_jid"] is None
    assert is_rfc3339_utc(device["created_at"])
    assert device["updated_at"] == device["created_at"]
    # And the internal routing fields are not shown
    assert "host_queue_url" not in response.text
    assert "wants_connection" not in response.text


@pytest.mark.parametrize("body", [None, {}, {"name": None}], ids=["no body", "empty object", "null name"])
def test_device_without_a_name_is_named_after_its_id(api, body):
    # Given a tenant admin
    tenant = api.register()
    # When it creates a device without a name (or without any body)
    response = api.request("POST", "/devices", tenant.admin_token, json=body)
    # Then the device is called after the first 8 characters of its id
    assert response.status_code == 201, response.text
    device = response.json()["device"]
    assert device["name"] == f"Device {device['id'][:8]}"


def test_device_name_is_stripped_and_may_be_100_characters(api):
    # Given a tenant admin
    tenant = api.register()
    # When it creates devices with surrounding spaces and with the longest allowed name
    padded = create_device(api, tenant.admin_token, name="  Front desk \t")
    longest = create_device(api, tenant.admin_token, name="x" * 100)
    unicode = create_device(api, tenant.admin_token, name="Büro ☎")
    # Then the names are stored trimmed and whole
    assert padded["name"] == "Front desk"
    assert longest["name"] == "x" * 100
    assert unicode["name"] == "Büro ☎"


@pytest.mark.parametrize(
    "name", ["", "   ", "x" * 101, 123, ["a"]], ids=["empty", "blank", "too long", "number", "list"]
)
def test_bad_device_name_is_a_validation_error(api, envelope, name):
    # Given a tenant admin
    tenant = api.register()
    # When it creates a device with a name that is empty, too long or not a string
    response = api.request("POST", "/devices", tenant.admin_token, json={"name": name})
    # Then 400 VALIDATION_ERROR on name, and no device exists
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["name"]
    assert listed_ids(api, tenant.admin_token) == []


def test_unknown_fields_are_ignored_and_cannot_set_ownership_or_state(api):
    # Given two tenants and a user of the first
    tenant = api.register()
    other = api.register()
    user_id, token = api.create_user(tenant, "user")
    # When the user creates a device naming another tenant, owner, id and state in the body
    forced = {
        "name": "mine",
        "id": str(uuid.uuid4()),
        "tenant_id": other.id,
        "owner_user_id": tenant.admin_id,
        "status": "connected",
        "is_logged_in": True,
        "host_queue_url": "https://example.com/queue",
    }
    response = api.request("POST", "/devices", token, json=forced)
    # Then those fields are ignored: a fresh device of the caller, in the caller's tenant
    assert response.status_code == 201, response.text
    device = response.json()["device"]
    assert device["id"] != forced["id"]
    assert (device["tenant_id"], device["owner_user_id"]) == (tenant.id, user_id)
    assert (device["status"], device["is_logged_in"]) == ("not_ready", False)
    assert listed_ids(api, other.admin_token) == []


@pytest.mark.parametrize(
    ("raw", "code"),
    [("{", "INVALID_JSON"), ("[]", "INVALID_REQUEST_FORMAT"), ('"name"', "INVALID_REQUEST_FORMAT")],
    ids=["malformed", "array", "string"],
)
def test_device_body_that_is_not_a_json_object_is_refused(api, envelope, raw, code):
    # Given a tenant admin
    tenant = api.register()
    # When it posts a body that is not valid JSON, or not an object
    response = api.request(
        "POST", "/devices", tenant.admin_token, data=raw, headers={"Content-Type": "application/json"}
    )
    # Then 400 with the standard envelope, and nothing was created
    envelope(response, 400, code)
    assert listed_ids(api, tenant.admin_token) == []


@pytest.mark.parametrize("role", ["admin", "manager", "user"])
def test_every_role_creates_devices(api, role):
    # Given a user of each role
    tenant = api.register()
    user_id, token = (
        (tenant.admin_id, tenant.admin_token) if role == "admin" else api.create_user(tenant, role)
    )
    # When it creates a device
    device = create_device(api, token)
    # Then it owns it
    assert device["owner_user_id"] == user_id


# --- GET /devices and GET /devices/{id} ------------------------------------------------


def test_user_lists_its_own_devices_and_admin_and_manager_list_all(api):
    # Given devices created, in this order, by an admin, a user, a manager and the user again
    tenant = api.register()
    _, user_token = api.create_user(tenant, "user")
    _, manager_token = api.create_user(tenant, "manager")
    first = create_device(api, tenant.admin_token, name="admin's")
    second = create_device(api, user_token, name="user's 1")
    third = create_device(api, manager_token, name="manager's")
    fourth = create_device(api, user_token, name="user's 2")
    # When each of them lists the devices
    # Then the user sees its own two, the admin and the manager all four, ordered by id
    assert listed_ids(api, user_token) == sorted([second["id"], fourth["id"]])
    everything = sorted([first["id"], second["id"], third["id"], fourth["id"]])
    assert listed_ids(api, tenant.admin_token) == everything
    assert listed_ids(api, manager_token) == everything
    # And the listed devices have the same shape as a single read
    listed = api.request("GET", "/devices", tenant.admin_token).json()
    assert listed["success"] is True
    assert listed["next"] is None
    assert listed["devices"][everything.index(second["id"])] == second


def test_tenant_without_devices_lists_none(api):
    tenant = api.register()
    response = api.request("GET", "/devices", tenant.admin_token)
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "devices": [], "next": None}


@pytest.mark.parametrize("reader", ["owner", "admin", "manager"])
def test_owner_admin_and_manager_read_a_device(api, reader):
    # Given a device of a plain user
    tenant = api.register()
    _, owner_token = api.create_user(tenant, "user")
    device = create_device(api, owner_token, name="field phone")
    token = {
        "owner": owner_token,
        "admin": tenant.admin_token,
        "manager": api.create_user(tenant, "manager")[1] if reader == "manager" else "",
    }[reader]
    # When the owner, an admin or a manager reads it
    response = api.request("GET", f"/devices/{device['id']}", token)
    # Then they get the device
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "device": device}


def test_plain_user_cannot_see_another_users_device(api, envelope):
    # Given a device of the admin, and a plain user of the same tenant
    tenant = api.register()
    device = create_device(api, tenant.admin_token)
    _, token = api.create_user(tenant, "user")
    # When the user reads it, or acts on it in any way
    attempts = [
        api.request("GET", f"/devices/{device['id']}", token),
        api.request("DELETE", f"/devices/{device['id']}", token),
        api.request("POST", f"/devices/{device['id']}/connect", token),
        api.request("GET", f"/devices/{device['id']}/qr", token),
        api.request("POST", f"/devices/{device['id']}/pair-phone", token, json={"phone": "15551234567"}),
        api.request("POST", f"/devices/{device['id']}/disconnect", token),
        api.request("POST", f"/devices/{device['id']}/logout", token),
    ]
    # Then each answer is 404 DEVICE_NOT_FOUND, the same as for a device that does not exist
    for response in attempts:
        envelope(response, 404, "DEVICE_NOT_FOUND")
    # And the device is untouched
    assert api.request("GET", f"/devices/{device['id']}", tenant.admin_token).json()["device"] == device


@pytest.mark.parametrize(
    "device_id",
    [
        "2d0f9a61-4b7e-4c3a-9e85-1f6a7b2c3d4e",
        "not-a-uuid",
        "8A1E6C3B-5D2F-4E7A-9B0C-6F4D3E2A1B5C",
        "x" * 2000,
    ],
    ids=["unknown", "not a uuid", "upper case", "very long"],
)
def test_unknown_device_is_404(api, envelope, device_id):
    tenant = api.register()
    envelope(api.request("GET", f"/devices/{device_id}", tenant.admin_token), 404, "DEVICE_NOT_FOUND")
    envelope(api.request("DELETE", f"/devices/{device_id}", tenant.admin_token), 404, "DEVICE_NOT_FOUND")


def test_device_routes_need_a_valid_token(api):
    # Given a device
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)["id"]
    routes = [
        ("POST", "/devices"),
        ("GET", "/devices"),
        ("GET", f"/devices/{device_id}"),
        ("DELETE", f"/devices/{device_id}"),
        ("POST", f"/devices/{device_id}/connect"),
        ("GET", f"/devices/{device_id}/qr"),
        ("POST", f"/devices/{device_id}/pair-phone"),
        ("POST", f"/devices/{device_id}/disconnect"),
        ("POST", f"/devices/{device_id}/logout"),
    ]
    # When any device route is called without a token, or with an unknown one
    for method, path in routes:
        for token in (None, str(uuid.uuid4())):
            response = api.request(method, path, token)
            # Then 401 Invalid token
            assert response.status_code == 401, (method, path, response.text)
            assert response.json() == INVALID_TOKEN
    # And the device is still there
    assert api.request("GET", f"/devices/{device_id}", tenant.admin_token).status_code == 200


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


# --- GET /status ------------------------------------------------------------------------


def test_status_lists_the_devices_the_caller_can_see(api):
    # Given a device of the admin and one of a plain user
    tenant = api.register()
    _, user_token = api.create_user(tenant, "user")
    admins = create_device(api, tenant.admin_token, name="admin's")
    users = create_device(api, user_token, name="user's")
    # When each calls GET /status
    admin_status = api.request("GET", "/status", tenant.admin_token).json()
    user_status = api.request("GET", "/status", user_token).json()
    # Then the admin sees both, the user its own, each in the short device form
    summary = {key: users[key] for key in SUMMARY_FIELDS}
    assert admin_status["devices"] == [{key: admins[key] for key in SUMMARY_FIELDS}, summary]
    assert user_status["devices"] == [summary]


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
        {},
        {"min_send_interval_seconds": -1},
        {"min_send_interval_seconds": 601},
        {"min_send_interval_seconds": "2"},
        {"min_send_interval_seconds": 1.5},
        {"min_send_interval_seconds": None},
        {"min_send_interval_seconds": True},
    ],
)
def test_send_spacing_is_a_whole_number_of_seconds_up_to_600(api, envelope, body):
    tenant = api.register()
    device_id = api.request("POST", "/devices", tenant.admin_token, json={}).json()["device"]["id"]
    response = api.request("PATCH", f"/devices/{device_id}", tenant.admin_token, json=body)
    error = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in error["validation"]] == ["min_send_interval_seconds"]
