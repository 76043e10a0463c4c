"""Platform operations over HTTP: registration, tenant listing and deletion, and the master token."""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.e2e

INVALID_TOKEN = {"error": "Invalid token"}
MASTER_TOKEN_REQUIRED = {"success": False, "error": "master token required"}
INVALID_MASTER_TOKEN = {"success": False, "error": "invalid master token"}


def unique_name(prefix: str = "tenant") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def registration(name: str | None = None, **extra: object) -> dict[str, object]:
    name = name or unique_name()
    return {
        "tenant_name": name,
        "email": f"owner-{uuid.uuid4().hex[:8]}@example.com",
        "password": "secret123",
        **extra,
    }


def master_routes(tenant_id: str) -> list[tuple[str, str, dict[str, object] | None]]:
    """Every master-only route, with a body that would succeed."""
    return [
        ("POST", "/register", registration()),
        ("GET", "/tenants", None),
        ("GET", f"/global/tenants/{tenant_id}", None),
        ("DELETE", f"/global/tenants/{tenant_id}", None),
    ]


MASTER_ROUTE_IDS = ["register", "list", "get", "delete"]


# --- POST /register ---------------------------------------------------------------------


def test_register_creates_tenant_and_admin(api, is_uuid4, is_rfc3339_utc):
    # Given the master token and a new tenant name
    body = registration(webhook_url=None)
    # When the tenant is registered
    response = api.request("POST", "/register", api.master_token, json=body)
    # Then 201 with the documented fields
    assert response.status_code == 201, response.text
    data = response.json()
    assert set(data) == {"success", "user", "tenant", "token", "webhook_configured", "webhook_url", "note"}
    assert data["success"] is True
    # And the tenant has the Tenant shape and the given name
    tenant = data["tenant"]
    assert set(tenant) == {"id", "name", "created_at", "updated_at"}
    assert is_uuid4(tenant["id"])
    assert tenant["name"] == body["tenant_name"]
    assert is_rfc3339_utc(tenant["created_at"])
    assert is_rfc3339_utc(tenant["updated_at"])
    # And the first user is an active admin of that tenant
    user = data["user"]
    assert {"id", "tenant_id", "email", "role", "active", "created_at", "updated_at"} <= set(user)
    assert is_uuid4(user["id"])
    assert user["tenant_id"] == tenant["id"]
    assert user["email"] == body["email"]
    assert user["role"] == "admin"
    assert user["active"] is True
    assert is_rfc3339_utc(user["created_at"])
    # And the token is a UUID v4 and is not repeated inside the user
    assert is_uuid4(data["token"])
    assert "token" not in user
    # And no webhook was configured
    assert data["webhook_configured"] is False
    assert data["webhook_url"] is None
    assert isinstance(data["note"], str)
    assert data["note"]
    # And nothing reveals the password
    assert "password" not in response.text
    assert body["password"] not in response.text
    assert "scrypt" not in response.text


def test_registered_token_works_as_the_admin(api):
    # Given a freshly registered tenant
    body = registration()
    data = api.request("POST", "/register", api.master_token, json=body).json()
    # When its token calls GET /status
    response = api.request("GET", "/status", data["token"])
    # Then it is the admin of that tenant
    assert response.status_code == 200, response.text
    status = response.json()
    assert status["user"]["id"] == data["user"]["id"]
    assert status["user"]["role"] == "admin"
    assert status["tenant"] == {"id": data["tenant"]["id"], "name": body["tenant_name"]}


def test_register_with_explicit_admin_role(api):
    # Given a body that names the role admin
    # When the tenant is registered
    response = api.request("POST", "/register", api.master_token, json=registration(role="admin"))
    # Then it is created with an admin
    assert response.status_code == 201, response.text
    assert response.json()["user"]["role"] == "admin"


@pytest.mark.parametrize("role", ["manager", "user", "super_admin", "ADMIN", ""])
def test_register_with_another_role_is_a_validation_error(api, envelope, role):
    # Given a registration asking for a first user that is not an admin
    body = registration(role=role)
    # When it is sent
    response = api.request("POST", "/register", api.master_token, json=body)
    # Then 400 VALIDATION_ERROR on the role field
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["role"]
    # And no tenant was created
    assert (
        api.request("POST", "/register", api.master_token, json=body | {"role": "admin"}).status_code == 201
    )


def test_register_with_webhook_url_echoes_it(api):
    # Given a registration with a webhook URL
    url = "https://hooks.example.com/gateway/events"
    # When it is sent
    response = api.request("POST", "/register", api.master_token, json=registration(webhook_url=url))
    # Then the webhook is reported configured, with the URL
    assert response.status_code == 201, response.text
    data = response.json()
    assert data["webhook_configured"] is True
    assert data["webhook_url"] == url


@pytest.mark.parametrize("variant", ["{name}", "{upper}", "{title}", "  {name}  "])
def test_register_existing_tenant_name_case_insensitively_is_409(api, envelope, variant):
    # Given a registered tenant "acme-…"
    name = unique_name("acme")
    api.register(name)
    # When the same name is registered again, in any case
    again = variant.format(name=name, upper=name.upper(), title=name.title())
    response = api.request("POST", "/register", api.master_token, json=registration(again))
    # Then 409 TENANT_EXISTS in the standard envelope, asking to contact the administrator
    data = envelope(response, 409, "TENANT_EXISTS")
    assert "exist" in data["error"].lower()
    assert "administrator" in data["error"].lower()


def test_refused_duplicate_registration_creates_nothing(api):
    # Given a registered tenant
    tenant = api.register()
    # When its name is registered again in another case
    response = api.request("POST", "/register", api.master_token, json=registration(tenant.name.upper()))
    assert response.status_code == 409
    # Then there is still exactly one tenant of that name, with its single admin
    tenants = api.walk("/tenants", api.master_token, "tenants", limit=200)
    same = [t for t in tenants if t["name"].lower() == tenant.name.lower()]
    assert [(t["id"], t["users_count"]) for t in same] == [(tenant.id, 1)]


@pytest.mark.parametrize("email", ["not-an-email", "a@", "@example.com", "a b@example.com", ""])
def test_register_with_invalid_email_is_a_validation_error(api, envelope, email):
    # Given a registration with an invalid email
    # When it is sent
    response = api.request("POST", "/register", api.master_token, json=registration(email=email))
    # Then 400 VALIDATION_ERROR naming the field, with the offending value
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert len(data["validation"]) == 1
    item = data["validation"][0]
    assert set(item) == {"field", "message", "value"}
    assert item["field"] == "email"
    assert item["message"]
    assert item["value"] == email


def test_register_with_short_password_is_a_validation_error_without_echo(api, envelope):
    # Given a five-character password
    password = "Zq9#x"
    # When a registration uses it
    response = api.request("POST", "/register", api.master_token, json=registration(password=password))
    # Then 400 VALIDATION_ERROR on the password, whose value is never echoed
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["password"]
    assert set(data["validation"][0]) == {"field", "message", "value"}
    assert data["validation"][0]["value"] is None
    assert password not in response.text


def test_register_with_six_character_password_is_accepted(api):
    # Given a password of exactly the minimum length
    # When a registration uses it
    response = api.request("POST", "/register", api.master_token, json=registration(password="Zq9#x!"))
    # Then the tenant is created
    assert response.status_code == 201, response.text


def test_register_with_missing_fields_lists_each(api, envelope):
    # Given an empty registration object
    # When it is sent
    response = api.request("POST", "/register", api.master_token, json={})
    # Then 400 VALIDATION_ERROR listing every missing field
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert {item["field"] for item in data["validation"]} == {"tenant_name", "email", "password"}


@pytest.mark.parametrize("name", ["", "   "])
def test_register_with_blank_tenant_name_is_a_validation_error(api, envelope, name):
    # Given a blank tenant name
    # When a registration uses it
    response = api.request("POST", "/register", api.master_token, json=registration() | {"tenant_name": name})
    # Then 400 VALIDATION_ERROR on tenant_name
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["tenant_name"]


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
        assert set(tenant) == {"id", "name", "created_at", "updated_at", "users_count", "devices_count"}
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
