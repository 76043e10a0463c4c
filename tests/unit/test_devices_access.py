"""Who sees and deletes which device, which device a request acts on, and the session checks."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from gateway.accounts.roles import Principal, Role
from gateway.devices import access, store
from gateway.devices.dependencies import authenticated_device
from gateway.errors import ApiError, OperationError, ShortBodyError
from gateway.models import DeviceModel
from gateway.web import create_app
from gateway.web.auth import current_principal

TENANT = "tenant-1"
ADMIN = Principal(TENANT, "admin-id", Role.ADMIN)
MANAGER = Principal(TENANT, "manager-id", Role.MANAGER)
USER = Principal(TENANT, "user-id", Role.USER)
OTHER_USER = Principal(TENANT, "other-user-id", Role.USER)
OTHER_TENANT_ADMIN = Principal("tenant-2", "admin-2", Role.ADMIN)


def device(owner: str = "user-id", status: str = "not_ready", tenant: str = TENANT) -> DeviceModel:
    return DeviceModel(
        tenant,
        str(uuid.uuid4()),
        owner_user_id=owner,
        name="phone",
        status=status,
        created_at="2026-01-01T00:00:00.000Z",
        updated_at="2026-01-01T00:00:00.000Z",
    )


@pytest.mark.parametrize(
    ("caller", "visible"),
    [(ADMIN, True), (MANAGER, True), (USER, True), (OTHER_USER, False), (OTHER_TENANT_ADMIN, False)],
    ids=["admin", "manager", "owner", "other user", "other tenant's admin"],
)
def test_a_user_sees_its_own_devices_admins_and_managers_the_tenants(
    caller: Principal, visible: bool
) -> None:
    assert access.can_see(caller, device(owner=USER.user_id)) is visible


@pytest.mark.parametrize(
    ("caller", "allowed"),
    [(ADMIN, True), (USER, True), (MANAGER, False)],
    ids=["admin", "owner", "manager who is not the owner"],
)
def test_owner_or_admin_may_delete(caller: Principal, allowed: bool) -> None:
    # Given a plain user's device
    target = device(owner=USER.user_id)
    # When the caller's right to delete it is checked
    if allowed:
        access.check_can_delete(caller, target)
        return
    # Then a manager that does not own it gets 403 Insufficient permissions
    with pytest.raises(ShortBodyError) as refused:
        access.check_can_delete(caller, target)
    assert (refused.value.status, refused.value.body()) == (403, {"error": "Insufficient permissions"})


def test_manager_may_delete_its_own_device() -> None:
    access.check_can_delete(MANAGER, device(owner=MANAGER.user_id))


@pytest.mark.parametrize(
    ("caller", "allowed"),
    [(ADMIN, True), (MANAGER, True), (USER, True), (OTHER_USER, False)],
    ids=["admin", "manager", "owner", "plain user who is not the owner"],
)
def test_owner_admin_or_manager_may_change_the_settings(caller: Principal, allowed: bool) -> None:
    # Given a plain user's device
    target = device(owner=USER.user_id)
    # When the caller's right to change its settings is checked
    if allowed:
        access.check_can_configure(caller, target)
        return
    # Then anyone else gets 403 Insufficient permissions (over HTTP such a caller cannot see
    # the device, so it is answered 404 before this)
    with pytest.raises(ShortBodyError) as refused:
        access.check_can_configure(caller, target)
    assert (refused.value.status, refused.value.body()) == (403, {"error": "Insufficient permissions"})


@pytest.mark.parametrize("device_id", ["nope", "", "x" * 5000, "BF59FFCE-8C89-481C-9F20-883985AD285A"])
def test_an_id_that_cannot_exist_is_404_without_a_read(
    monkeypatch: pytest.MonkeyPatch, device_id: str
) -> None:
    # Given a store that must not be read
    def no_read(*_: Any) -> None:
        raise AssertionError("read for an impossible id")

    monkeypatch.setattr(store, "get_device", no_read)
    # When such an id is looked up
    with pytest.raises(ApiError) as missing:
        access.find_visible_device(ADMIN, device_id)
    # Then 404 DEVICE_NOT_FOUND
    assert (missing.value.status, missing.value.code) == (404, "DEVICE_NOT_FOUND")


def test_a_device_the_caller_cannot_see_is_404_like_a_missing_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the admin's device in the store
    target = device(owner=ADMIN.user_id)
    monkeypatch.setattr(store, "get_device", lambda *_: target)
    # When another plain user of the tenant looks it up
    with pytest.raises(ApiError) as missing:
        access.find_visible_device(USER, target.device_id)
    # Then 404 DEVICE_NOT_FOUND
    assert (missing.value.status, missing.value.code) == (404, "DEVICE_NOT_FOUND")


def test_only_device_needs_exactly_one() -> None:
    one = device()
    assert access.only_device([one]) is one
    with pytest.raises(ApiError) as none:
        access.only_device([])
    with pytest.raises(ApiError) as several:
        access.only_device([device(), device()])
    assert (none.value.status, none.value.code) == (404, "DEVICE_NOT_FOUND")
    assert (several.value.status, several.value.code) == (400, "DEVICE_ID_REQUIRED")


@pytest.mark.parametrize(
    ("status", "code"),
    [
        ("not_ready", "DEVICE_NOT_READY"),
        ("pairing", "DEVICE_NOT_READY"),
        ("logged_out", "DEVICE_NOT_READY"),
        ("disconnected", "DEVICE_DISCONNECTED"),
    ],
)
def test_an_operation_needing_the_session_gets_the_statuss_503(status: str, code: str) -> None:
    # When an operation needs the session of a device that is not connected
    with pytest.raises(ApiError) as standard:
        access.require_session(device(status=status))
    with pytest.raises(OperationError) as group:
        access.require_group_session(device(status=status))
    # Then the standard envelope names the status's code, and the group envelope says device_disconnected
    assert (standard.value.status, standard.value.code) == (503, code)
    assert group.value.status == 503
    assert group.value.body()["error"]["code"] == "device_disconnected"


def test_a_connected_device_passes_the_session_checks() -> None:
    access.require_session(device(status="connected"))
    access.require_group_session(device(status="connected"))


# --- the X-Device-Id dependency, as a later route uses it -------------------------------


@pytest.fixture
def selection_app(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """An app with one route acting through the request's device, over an in-memory store."""
    devices: list[DeviceModel] = []
    state: dict[str, Any] = {"caller": USER, "devices": devices}

    def get_device(tenant_id: str, device_id: str) -> DeviceModel | None:
        return next((d for d in devices if (d.tenant_id, d.device_id) == (tenant_id, device_id)), None)

    def list_devices(tenant_id: str, owner_user_id: str | None = None) -> list[DeviceModel]:
        return [d for d in devices if d.tenant_id == tenant_id and owner_user_id in (None, d.owner_user_id)]

    monkeypatch.setattr(store, "get_device", get_device)
    monkeypatch.setattr(store, "list_devices", list_devices)
    app: FastAPI = create_app()

    @app.get("/acting")
    def acting(chosen: DeviceModel = Depends(authenticated_device)) -> dict[str, str]:
        return {"device_id": chosen.device_id}

    app.dependency_overrides[current_principal] = lambda: state["caller"]
    state["client"] = TestClient(app)
    return state


def test_the_header_names_a_visible_device(selection_app: dict[str, Any]) -> None:
    # Given a manager, and two devices of a plain user
    first, second = device(owner=USER.user_id), device(owner=USER.user_id)
    selection_app["devices"].extend([first, second])
    selection_app["caller"] = MANAGER
    # When the manager names the second one
    response = selection_app["client"].get("/acting", headers={"X-Device-Id": second.device_id})
    # Then the route acts through it
    assert response.json() == {"device_id": second.device_id}


@pytest.mark.parametrize("header", ["not-a-device", "7bee0d45-cefe-4677-8cc6-ce8376588e64", ""])
def test_a_header_naming_no_visible_device_is_404(selection_app: dict[str, Any], header: str) -> None:
    # Given a plain user who owns one device, and another user's device
    selection_app["devices"].extend([device(owner=USER.user_id), device(owner=OTHER_USER.user_id)])
    foreign = selection_app["devices"][1].device_id
    # When the header names an unknown id, another user's device, or nothing
    for value in (header, foreign):
        response = selection_app["client"].get("/acting", headers={"X-Device-Id": value})
        # Then 404 DEVICE_NOT_FOUND, even though the caller has a device of its own
        assert response.status_code == 404, response.text
        assert response.json()["error_code"] == "DEVICE_NOT_FOUND"


def test_without_the_header_the_callers_only_device_is_used(selection_app: dict[str, Any]) -> None:
    # Given an admin who owns one device, in a tenant with other users' devices
    own = device(owner=ADMIN.user_id)
    selection_app["devices"].extend([device(owner=USER.user_id), own, device(owner=MANAGER.user_id)])
    selection_app["caller"] = ADMIN
    # When it calls without the header
    response = selection_app["client"].get("/acting")
    # Then its own device is used, not the others it can see
    assert response.json() == {"device_id": own.device_id}


def test_without_the_header_no_device_is_404_and_several_are_400(selection_app: dict[str, Any]) -> None:
    client = selection_app["client"]
    # Given a plain user without a device (another user has one)
    selection_app["devices"].append(device(owner=OTHER_USER.user_id))
    # Then without the header: 404 DEVICE_NOT_FOUND
    none = client.get("/acting")
    assert (none.status_code, none.json()["error_code"]) == (404, "DEVICE_NOT_FOUND")
    # Given the user owns two devices
    selection_app["devices"].extend([device(owner=USER.user_id), device(owner=USER.user_id)])
    # Then without the header: 400 DEVICE_ID_REQUIRED
    several = client.get("/acting")
    assert (several.status_code, several.json()["error_code"]) == (400, "DEVICE_ID_REQUIRED")
