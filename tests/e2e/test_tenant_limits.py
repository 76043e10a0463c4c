"""A tenant's device limit over HTTP: set at registration or by the platform's administrator
(PATCH /global/tenants/{id}), shown in the tenant views, enforced on POST /devices with 403
DEVICE_QUOTA_EXCEEDED even when many creations race, and out of the tenant's own reach."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

Envelope = Callable[..., dict[str, Any]]


def create(api: Any, token: str) -> Any:
    return api.request("POST", "/devices", token, json={})


def tenant_of(api: Any, tenant_id: str) -> dict[str, Any]:
    response = api.request("GET", f"/global/tenants/{tenant_id}", api.master_token)
    assert response.status_code == 200, response.text
    return response.json()["tenant"]


def set_limit(api: Any, tenant_id: str, max_devices: int | None) -> Any:
    return api.request(
        "PATCH", f"/global/tenants/{tenant_id}", api.master_token, json={"max_devices": max_devices}
    )


def test_a_tenant_registered_with_a_limit_gets_that_many_devices_and_no_more(
    api: Any, envelope: Envelope
) -> None:
    # Given a tenant registered with room for two devices, and a user of it
    tenant = api.register(max_devices=2)
    _, user_token = api.create_user(tenant, "user")

    # When its admin creates two devices and its user a third
    first, second = create(api, tenant.admin_token), create(api, tenant.admin_token)
    third = create(api, user_token)

    # Then two are created, the third is refused, and the tenant shows its limit and count
    assert (first.status_code, second.status_code) == (201, 201), (first.text, second.text)
    error = envelope(third, 403, "DEVICE_QUOTA_EXCEEDED")
    assert "2 devices" in error["error"]
    shown = tenant_of(api, tenant.id)
    assert (shown["max_devices"], shown["devices_count"]) == (2, 2)

    # And once a device is deleted, there is room for one again
    deleted = api.request("DELETE", f"/devices/{first.json()['device']['id']}", tenant.admin_token)
    assert deleted.status_code == 200, deleted.text
    assert create(api, user_token).status_code == 201
    envelope(create(api, tenant.admin_token), 403, "DEVICE_QUOTA_EXCEEDED")


def test_the_administrator_sets_lowers_and_removes_the_limit(api: Any, envelope: Envelope) -> None:
    # Given a tenant without a limit and two devices
    tenant = api.register()
    assert tenant_of(api, tenant.id)["max_devices"] is None
    for _ in range(2):
        assert create(api, tenant.admin_token).status_code == 201

    # When the limit is lowered under what it has
    lowered = set_limit(api, tenant.id, 1)

    # Then the answer is the tenant with its limit; its devices stay, new ones are refused
    assert lowered.status_code == 200, lowered.text
    body = lowered.json()
    assert body["success"] is True
    assert (body["tenant"]["max_devices"], body["tenant"]["devices_count"]) == (1, 2)
    envelope(create(api, tenant.admin_token), 403, "DEVICE_QUOTA_EXCEEDED")
    listed = {t["id"]: t for t in api.walk("/tenants", api.master_token, "tenants", limit=200)}
    assert listed[tenant.id]["max_devices"] == 1

    # And when the limit is removed (null), creating works again
    assert set_limit(api, tenant.id, None).json()["tenant"]["max_devices"] is None
    assert create(api, tenant.admin_token).status_code == 201


def test_racing_creations_never_pass_the_limit(api: Any, envelope: Envelope) -> None:
    # Given a tenant with room for three devices
    tenant = api.register(max_devices=3)

    # When twelve creations race
    with ThreadPoolExecutor(max_workers=12) as pool:
        answers = list(pool.map(lambda _: create(api, tenant.admin_token), range(12)))

    # Then exactly three are created and the others refused with the quota's code (never a 500)
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [201] * 3 + [403] * 9, [answer.text for answer in answers]
    for answer in answers:
        if answer.status_code == 403:
            envelope(answer, 403, "DEVICE_QUOTA_EXCEEDED")
    devices = api.walk("/devices", tenant.admin_token, "devices")
    assert len(devices) == 3
    assert tenant_of(api, tenant.id)["devices_count"] == 3


def test_a_tenant_cannot_change_its_own_limit(api: Any, envelope: Envelope) -> None:
    # Given a tenant limited to one device
    tenant = api.register(max_devices=1)

    # When its admin tries to lift the limit, by the platform route or by registering again
    patched = api.request(
        "PATCH", f"/global/tenants/{tenant.id}", tenant.admin_token, json={"max_devices": None}
    )

    # Then it is refused as any non-master token is, and the limit stays
    assert patched.status_code == 401, patched.text
    assert patched.json() == {"success": False, "error": "invalid master token"}
    assert tenant_of(api, tenant.id)["max_devices"] == 1


@pytest.mark.parametrize("body", [{}, {"max_devices": -1}, {"max_devices": "ten"}, {"max_devices": 1.5}])
def test_a_bad_limit_is_a_validation_error(api: Any, envelope: Envelope, body: dict[str, Any]) -> None:
    tenant = api.register()
    response = api.request("PATCH", f"/global/tenants/{tenant.id}", api.master_token, json=body)
    error = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in error["validation"]] == ["max_devices"]


def test_a_limit_of_an_unknown_tenant_is_not_found(api: Any, envelope: Envelope) -> None:
    missing = "0f8e4c7a-2f9b-4a8e-9a1d-3b5c6d7e8f90"
    envelope(set_limit(api, missing, 5), 404, "TENANT_NOT_FOUND")


def test_registration_refuses_a_negative_limit(api: Any, envelope: Envelope) -> None:
    body = {
        "tenant_name": "limited-negative",
        "email": "a@b.example.com",
        "password": "secret123",
        "max_devices": -1,
    }
    error = envelope(api.request("POST", "/register", api.master_token, json=body), 400, "VALIDATION_ERROR")
    assert [item["field"] for item in error["validation"]] == ["max_devices"]
