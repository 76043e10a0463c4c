"""Devices over HTTP: creation, listing and reading, who may see what, and validation.

None of these needs a session host: a device that never connected is created, read and
deleted from its record alone (deletion and the send spacing: ``test_devices_changes.py``). The
commands that reach a host (connect, QR, pairing, disconnect, logout, deleting a running device)
are in ``tests/integration/test_device_commands.py``.
"""

from __future__ import annotations

import uuid

import pytest
from devices_steps import DEVICE_FIELDS, create_device, listed_ids

pytestmark = pytest.mark.e2e

INVALID_TOKEN = {"error": "Invalid token"}
SUMMARY_FIELDS = {"id", "name", "status", "is_connected", "is_logged_in", "messaging_jid"}


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
