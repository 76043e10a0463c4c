"""Tenant registration over HTTP (POST /register): what it creates, and what it refuses."""

from __future__ import annotations

import pytest
from platform_steps import registration, unique_name

pytestmark = pytest.mark.e2e


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
    assert set(tenant) == {"id", "name", "max_devices", "created_at", "updated_at"}
    assert is_uuid4(tenant["id"])
    assert tenant["name"] == body["tenant_name"]
    assert tenant["max_devices"] is None  # no limit unless given
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
