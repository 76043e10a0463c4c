"""Platform operations over HTTP: the master token, tenant listing and deletion. Registration:
``test_platform_register.py``."""

from __future__ import annotations

import uuid

import pytest
from platform_steps import registration

pytestmark = pytest.mark.e2e

INVALID_TOKEN = {"error": "Invalid token"}
MASTER_TOKEN_REQUIRED = {"success": False, "error": "master token required"}
INVALID_MASTER_TOKEN = {"success": False, "error": "invalid master token"}


def master_routes(tenant_id: str) -> list[tuple[str, str, dict[str, object] | None]]:
    """Every master-only route, with a body that would succeed."""
    return [
        ("POST", "/register", registration()),
        ("GET", "/tenants", None),
        ("GET", f"/global/tenants/{tenant_id}", None),
        ("DELETE", f"/global/tenants/{tenant_id}", None),
    ]


MASTER_ROUTE_IDS = ["register", "list", "get", "delete"]


# --- the master token -------------------------------------------------------------------


@pytest.mark.parametrize("index", range(4), ids=MASTER_ROUTE_IDS)
def test_master_route_without_header_requires_the_master_token(api, index):
    # Given a tenant
    tenant = api.register()
    method, path, body = master_routes(tenant.id)[index]
    # When a master route is called without an Authorization header
    response = api.request(method, path, json=body)
    # Then 401 with exactly the documented body
    assert response.status_code == 401, response.text
    assert response.json() == MASTER_TOKEN_REQUIRED
    # And the tenant is untouched
    assert api.request("GET", "/status", tenant.admin_token).status_code == 200


@pytest.mark.parametrize("index", range(4), ids=MASTER_ROUTE_IDS)
@pytest.mark.parametrize("kind", ["admin", "user", "unknown-uuid", "wrong", "master-prefix", "basic"])
def test_master_route_with_another_token_is_an_invalid_master_token(api, index, kind):
    # Given a tenant with an admin and a user
    tenant = api.register()
    _, user_token = api.create_user(tenant, "user")
    header = {
        "admin": f"Bearer {tenant.admin_token}",
        "user": f"Bearer {user_token}",
        "unknown-uuid": f"Bearer {uuid.uuid4()}",
        "wrong": "Bearer not-the-master-token",
        "master-prefix": f"Bearer {api.master_token[:-1]}",
        "basic": f"Basic {api.master_token}",
    }[kind]
    method, path, body = master_routes(tenant.id)[index]
    # When a master route is called with a token that is not the master token
    response = api.request(method, path, json=body, headers={"Authorization": header})
    # Then 401 with exactly the documented body
    assert response.status_code == 401, response.text
    assert response.json() == INVALID_MASTER_TOKEN
    # And the tenant is untouched
    assert api.request("GET", "/status", tenant.admin_token).status_code == 200


@pytest.mark.parametrize("form", ["Bearer {}", "bearer {}", "BEARER {}", "{}"])
def test_master_token_is_read_like_any_bearer_token(api, form):
    # Given a tenant, and the master token sent with the scheme word in any case or bare
    tenant = api.register()
    header = {"Authorization": form.format(api.master_token)}
    # When the tenant is fetched
    response = api.request("GET", f"/global/tenants/{tenant.id}", headers=header)
    # Then the master token is accepted
    assert response.status_code == 200, response.text
    assert response.json()["tenant"]["id"] == tenant.id


def test_master_token_in_query_string_is_not_read(api):
    # Given the master token sent only as a query parameter
    # When the tenants are listed
    response = api.request("GET", "/tenants", params={"token": api.master_token})
    # Then the master token is reported missing
    assert response.status_code == 401
    assert response.json() == MASTER_TOKEN_REQUIRED


@pytest.mark.parametrize("index", range(4), ids=MASTER_ROUTE_IDS)
def test_master_routes_are_forbidden_when_super_admin_is_disabled(api, settings_override, index):
    # Given a tenant, and super-admin access disabled by configuration
    tenant = api.register()
    settings_override(SUPER_ADMIN_ENABLED="false")
    method, path, body = master_routes(tenant.id)[index]
    # When a master route is called with the valid master token
    response = api.request(method, path, api.master_token, json=body)
    # Then 403
    assert response.status_code == 403, response.text
    assert response.json()["success"] is False
    # And tenant routes keep working, and the tenant was not deleted
    assert api.request("GET", "/status", tenant.admin_token).status_code == 200


def test_master_routes_work_again_when_super_admin_is_re_enabled(api, settings_override):
    # Given a tenant, and super-admin access disabled and then enabled again
    tenant = api.register()
    settings_override(SUPER_ADMIN_ENABLED="false")
    assert api.request("GET", f"/global/tenants/{tenant.id}", api.master_token).status_code == 403
    settings_override(SUPER_ADMIN_ENABLED="true")
    # When the tenant is fetched
    response = api.request("GET", f"/global/tenants/{tenant.id}", api.master_token)
    # Then it works
    assert response.status_code == 200, response.text


# --- GET /tenants and GET /global/tenants/{id} -----------------------------------------


def test_list_tenants_shows_every_tenant_with_counts(api, is_rfc3339_utc, assert_no_secrets):
    # Given two tenants, one with two extra users
    first = api.register()
    api.create_user(first, "manager")
    api.create_user(first, "user")
    second = api.register()
    # When the tenants are listed with the master token, page after page
    response = api.request("GET", "/tenants", api.master_token)
    listed = api.walk("/tenants", api.master_token, "tenants", limit=200)
    # Then both appear, each with the Tenant fields and its counts
    assert response.status_code == 200, response.text
    data = response.json()
    assert set(data) == {"success", "tenants", "next"}
    assert data["success"] is True
    by_id = {tenant["id"]: tenant for tenant in listed}
    for tenant in listed:
        assert set(tenant) == {
            "id",
            "name",
            "max_devices",
            "created_at",
            "updated_at",
            "users_count",
            "devices_count",
        }
        assert is_rfc3339_utc(tenant["created_at"])
    assert by_id[first.id]["name"] == first.name
    assert by_id[first.id]["users_count"] == 3
    assert by_id[first.id]["devices_count"] == 0
    assert by_id[second.id]["users_count"] == 1
    assert by_id[second.id]["devices_count"] == 0
    # And no token, password or hash is in the listing
    assert_no_secrets(response, tokens=(first.admin_token, second.admin_token), passwords=("secret123",))


def test_get_tenant_returns_it_with_counts(api, assert_no_secrets):
    # Given a tenant with one extra user
    tenant = api.register()
    api.create_user(tenant, "user")
    # When it is fetched with the master token
    response = api.request("GET", f"/global/tenants/{tenant.id}", api.master_token)
    # Then it is returned with its counts
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["success"] is True
    assert data["tenant"]["id"] == tenant.id
    assert data["tenant"]["name"] == tenant.name
    assert data["tenant"]["users_count"] == 2
    assert data["tenant"]["devices_count"] == 0
    assert {"created_at", "updated_at"} <= set(data["tenant"])
    assert_no_secrets(response, tokens=(tenant.admin_token,))


@pytest.mark.parametrize("method", ["GET", "DELETE"])
@pytest.mark.parametrize("tenant_id", ["0b7c1e52-9a4d-4f6b-8e3a-5d2c7f1a9b04", "not-a-uuid", "x" * 3000])
def test_unknown_tenant_is_404(api, envelope, method, tenant_id):
    # Given an id no tenant has
    # When it is fetched or deleted with the master token
    response = api.request(method, f"/global/tenants/{tenant_id}", api.master_token)
    # Then 404 in the standard envelope
    envelope(response, 404)


# --- DELETE /global/tenants/{id} --------------------------------------------------------


def test_delete_tenant_reports_what_was_deleted(api):
    # Given a tenant with an admin, a manager and a user
    tenant = api.register()
    api.create_user(tenant, "manager")
    api.create_user(tenant, "user")
    # When it is deleted with the master token
    response = api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token)
    # Then the response counts what was deleted
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "deleted": {"users": 3, "devices": 0, "webhooks": 0}}


def test_deleted_tenant_is_gone_and_its_tokens_stop_working(api, envelope):
    # Given a tenant with an admin and a user
    tenant = api.register()
    _, user_token = api.create_user(tenant, "user")
    # When it is deleted
    assert api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token).status_code == 200
    # Then every token of the tenant is rejected
    for token in (tenant.admin_token, user_token):
        response = api.request("GET", "/status", token)
        assert response.status_code == 401
        assert response.json() == INVALID_TOKEN
    # And the tenant is unknown to the platform
    envelope(api.request("GET", f"/global/tenants/{tenant.id}", api.master_token), 404)
    envelope(api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token), 404)
    listed = api.walk("/tenants", api.master_token, "tenants", limit=200)
    assert tenant.id not in {t["id"] for t in listed}


def test_deleted_tenant_name_can_be_registered_again(api):
    # Given a deleted tenant
    tenant = api.register()
    assert api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token).status_code == 200
    # When its name is registered again, with the same admin email
    response = api.request(
        "POST",
        "/register",
        api.master_token,
        json={
            "tenant_name": tenant.name,
            "email": f"admin@{tenant.name}.example.com",
            "password": "secret123",
        },
    )
    # Then a new, empty tenant is created whose token works, while the old token stays dead
    assert response.status_code == 201, response.text
    data = response.json()
    assert data["tenant"]["id"] != tenant.id
    users = api.request("GET", "/users", data["token"]).json()["users"]
    assert [user["id"] for user in users] == [data["user"]["id"]]
    assert api.request("GET", "/status", tenant.admin_token).status_code == 401


def test_deleting_one_tenant_leaves_others_untouched(api):
    # Given two tenants
    doomed = api.register()
    kept = api.register()
    _, kept_user_token = api.create_user(kept, "user")
    # When one is deleted
    assert api.request("DELETE", f"/global/tenants/{doomed.id}", api.master_token).status_code == 200
    # Then the other still works and keeps its users
    assert api.request("GET", "/status", kept_user_token).status_code == 200
    fetched = api.request("GET", f"/global/tenants/{kept.id}", api.master_token).json()
    assert fetched["tenant"]["users_count"] == 2
