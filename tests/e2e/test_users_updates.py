"""User updates over HTTP (PUT /users/{id}): what each role may change, for itself and others."""

from __future__ import annotations

import pytest
from users_steps import INSUFFICIENT_PERMISSIONS, fetch_user

pytestmark = pytest.mark.e2e

# (caller role, target role, change, role after)
ALLOWED_UPDATES = [
    ("admin", "user", {"active": False}, "user"),
    ("admin", "manager", {"active": False}, "manager"),
    ("admin", "admin", {"active": False}, "admin"),
    ("admin", "user", {"role": "manager"}, "manager"),
    ("admin", "user", {"role": "admin"}, "admin"),
    ("admin", "manager", {"role": "user"}, "user"),
    ("admin", "manager", {"role": "admin"}, "admin"),
    ("admin", "admin", {"role": "user"}, "user"),
    ("admin", "admin", {"role": "manager"}, "manager"),
    ("admin", "user", {"active": False, "role": "manager"}, "manager"),
    ("manager", "user", {"active": False}, "user"),
    ("manager", "manager", {"active": False}, "manager"),
    ("manager", "user", {"role": "manager"}, "manager"),
    ("manager", "manager", {"role": "user"}, "user"),
    ("manager", "user", {"active": False, "role": "manager"}, "manager"),
]


@pytest.mark.parametrize(
    ("caller", "target", "change", "role_after"),
    ALLOWED_UPDATES,
    ids=[f"{c}-sets-{t}-{'-'.join(f'{k}={v}' for k, v in ch.items())}" for c, t, ch, _ in ALLOWED_UPDATES],
)
def test_allowed_update(api, assert_no_secrets, caller, target, change, role_after):
    # Given a caller and another user of the same tenant
    tenant = api.register()
    caller_token = tenant.admin_token if caller == "admin" else api.create_user(tenant, caller)[1]
    target_id, target_token = api.create_user(tenant, target)
    before = fetch_user(api, tenant, target_id)
    # When the caller applies the change
    response = api.request("PUT", f"/users/{target_id}", caller_token, json=change)
    # Then the updated user is returned, without any token
    assert response.status_code == 200, response.text
    user = response.json()["user"]
    assert user["id"] == target_id
    assert user["role"] == role_after
    assert user["active"] is change.get("active", True)
    assert user["updated_at"] >= before["updated_at"]
    assert_no_secrets(response, tokens=(tenant.admin_token, caller_token, target_token))
    # And the change is stored
    stored = fetch_user(api, tenant, target_id)
    assert (stored["role"], stored["active"]) == (role_after, change.get("active", True))


def test_manager_reactivates_a_user(api):
    # Given a deactivated user
    tenant = api.register()
    _, manager_token = api.create_user(tenant, "manager")
    user_id, user_token = api.create_user(tenant, "user")
    api.request("PUT", f"/users/{user_id}", manager_token, json={"active": False})
    # When a manager reactivates it
    response = api.request("PUT", f"/users/{user_id}", manager_token, json={"active": True})
    # Then it is active and its token works again
    assert response.status_code == 200, response.text
    assert response.json()["user"]["active"] is True
    assert api.request("GET", "/status", user_token).status_code == 200


FORBIDDEN_UPDATES = [
    # a manager touching an admin, in any way
    ("manager", "admin", {"active": False}),
    ("manager", "admin", {"active": True}),
    ("manager", "admin", {"role": "user"}),
    ("manager", "admin", {"role": "manager"}),
    ("manager", "admin", {"role": "admin"}),
    # any transition to admin by a manager
    ("manager", "user", {"role": "admin"}),
    ("manager", "manager", {"role": "admin"}),
    ("manager", "user", {"active": False, "role": "admin"}),
    # a plain user changes nothing
    ("user", "user", {"active": False}),
    ("user", "user", {"role": "manager"}),
    ("user", "manager", {"active": False}),
    ("user", "admin", {"role": "user"}),
]


@pytest.mark.parametrize(
    ("caller", "target", "change"),
    FORBIDDEN_UPDATES,
    ids=[f"{c}-sets-{t}-{'-'.join(f'{k}={v}' for k, v in ch.items())}" for c, t, ch in FORBIDDEN_UPDATES],
)
def test_forbidden_update(api, caller, target, change):
    # Given a caller and another user of the same tenant
    tenant = api.register()
    _, caller_token = api.create_user(tenant, caller)
    target_id, _ = api.create_user(tenant, target)
    before = fetch_user(api, tenant, target_id)
    # When the caller tries the change
    response = api.request("PUT", f"/users/{target_id}", caller_token, json=change)
    # Then 403 Insufficient permissions and the target is unchanged
    assert response.status_code == 403, response.text
    assert response.json() == INSUFFICIENT_PERMISSIONS
    assert fetch_user(api, tenant, target_id) == before


def test_manager_cannot_touch_the_tenant_admin(api):
    # Given the registered admin of a tenant and a manager
    tenant = api.register()
    _, manager_token = api.create_user(tenant, "manager")
    # When the manager tries to deactivate the admin
    response = api.request("PUT", f"/users/{tenant.admin_id}", manager_token, json={"active": False})
    # Then 403 and the admin still works
    assert response.status_code == 403
    assert response.json() == INSUFFICIENT_PERMISSIONS
    assert api.request("GET", "/status", tenant.admin_token).status_code == 200


@pytest.mark.parametrize("role", ["manager", "user"])
def test_non_admin_cannot_promote_itself_to_admin(api, role):
    # Given a manager or a user
    tenant = api.register()
    user_id, token = api.create_user(tenant, role)
    # When it tries to make itself admin
    response = api.request("PUT", f"/users/{user_id}", token, json={"role": "admin"})
    # Then 403 and its role is unchanged
    assert response.status_code == 403
    assert response.json() == INSUFFICIENT_PERMISSIONS
    assert fetch_user(api, tenant, user_id)["role"] == role


@pytest.mark.parametrize(
    "change",
    [{"active": False}, {"role": "manager"}, {"role": "user"}, {"active": False, "role": "admin"}],
)
def test_admin_cannot_deactivate_or_demote_itself(api, envelope, change):
    # Given a tenant admin
    tenant = api.register()
    # When it tries to deactivate or demote itself
    response = api.request("PUT", f"/users/{tenant.admin_id}", tenant.admin_token, json=change)
    # Then 409 CONFLICT and it is still an active admin
    envelope(response, 409, "CONFLICT")
    status = api.request("GET", "/status", tenant.admin_token)
    assert status.status_code == 200
    assert status.json()["user"]["role"] == "admin"
    assert status.json()["user"]["active"] is True


@pytest.mark.parametrize("change", [{"active": True}, {"role": "admin"}, {"active": True, "role": "admin"}])
def test_admin_may_confirm_its_own_state(api, change):
    # Given a tenant admin
    tenant = api.register()
    # When it sends an update that changes nothing about itself
    response = api.request("PUT", f"/users/{tenant.admin_id}", tenant.admin_token, json=change)
    # Then it succeeds and it is still an active admin
    assert response.status_code == 200, response.text
    assert response.json()["user"]["role"] == "admin"
    assert response.json()["user"]["active"] is True


def test_admin_may_demote_another_admin(api):
    # Given two admins
    tenant = api.register()
    other_id, other_token = api.create_user(tenant, "admin")
    # When one demotes the other
    response = api.request("PUT", f"/users/{other_id}", tenant.admin_token, json={"role": "user"})
    # Then the other is a user from its next request
    assert response.status_code == 200, response.text
    assert api.request("GET", "/users", other_token).status_code == 403


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "body"), ({"role": "owner"}, "role"), ({"active": "maybe"}, "active"), ({"role": None}, "body")],
)
def test_invalid_update_is_a_validation_error(api, envelope, body, field):
    # Given a tenant admin and a user
    tenant = api.register()
    user_id, _ = api.create_user(tenant, "user")
    # When it sends an update with nothing valid to change
    response = api.request("PUT", f"/users/{user_id}", tenant.admin_token, json=body)
    # Then 400 VALIDATION_ERROR and the user is unchanged
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert field in {item["field"] for item in data["validation"]}
    user = fetch_user(api, tenant, user_id)
    assert (user["role"], user["active"]) == ("user", True)
