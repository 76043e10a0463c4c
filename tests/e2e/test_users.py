"""User management over HTTP: creation, listing, reading, GET /status, and where secrets never
appear. What each role may update: ``test_users_updates.py``."""

from __future__ import annotations

import json
import uuid

import pytest
from users_steps import INSUFFICIENT_PERMISSIONS, new_user

pytestmark = pytest.mark.e2e


# --- POST /users ------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "manager", "user"])
def test_admin_creates_user_with_its_own_token(api, is_uuid4, is_rfc3339_utc, role):
    # Given a tenant admin
    tenant = api.register()
    body = new_user(role)
    # When it creates a user of any role
    response = api.request("POST", "/users", tenant.admin_token, json=body)
    # Then 201 with the new user, in the admin's tenant, with its own UUID v4 token
    assert response.status_code == 201, response.text
    data = response.json()
    assert data["success"] is True
    user = data["user"]
    assert set(user) >= {"id", "tenant_id", "email", "role", "active", "created_at", "updated_at", "token"}
    assert is_uuid4(user["id"])
    assert user["tenant_id"] == tenant.id
    assert user["email"] == body["email"]
    assert user["role"] == role
    assert user["active"] is True
    assert is_rfc3339_utc(user["created_at"])
    assert is_rfc3339_utc(user["updated_at"])
    assert is_uuid4(user["token"])
    assert user["token"] != tenant.admin_token
    # And the password is never returned
    assert "password" not in response.text
    assert "secret123" not in response.text
    assert "scrypt" not in response.text
    # And the token works as that user
    status = api.request("GET", "/status", user["token"]).json()
    assert status["user"]["id"] == user["id"]
    assert status["user"]["role"] == role


def test_created_user_with_webhook_url_is_accepted(api):
    # Given a tenant admin
    tenant = api.register()
    # When it creates a user with a webhook URL
    response = api.request(
        "POST", "/users", tenant.admin_token, json=new_user(webhook_url="https://hooks.example.com/u")
    )
    # Then the user is created
    assert response.status_code == 201, response.text


@pytest.mark.parametrize("creator", ["manager", "user"])
def test_only_an_admin_creates_users(api, creator):
    # Given a manager or a plain user
    tenant = api.register()
    _, token = api.create_user(tenant, creator)
    # When it tries to create a user (even a plain one)
    for role in ("user", "manager", "admin"):
        response = api.request("POST", "/users", token, json=new_user(role))
        # Then 403 Insufficient permissions
        assert response.status_code == 403, response.text
        assert response.json() == INSUFFICIENT_PERMISSIONS
    # And nobody was created
    users = api.request("GET", "/users", tenant.admin_token).json()["users"]
    assert len(users) == 2


@pytest.mark.parametrize("role", ["super_admin", "owner", "Admin", "", None])
def test_create_user_with_unknown_role_is_a_validation_error(api, envelope, role):
    # Given a tenant admin
    tenant = api.register()
    # When it creates a user with a role that does not exist
    response = api.request("POST", "/users", tenant.admin_token, json=new_user(role))
    # Then 400 VALIDATION_ERROR on role
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["role"]


def test_create_user_without_role_is_a_validation_error(api, envelope):
    # Given a tenant admin
    tenant = api.register()
    body = new_user()
    del body["role"]
    # When it creates a user without a role
    response = api.request("POST", "/users", tenant.admin_token, json=body)
    # Then 400 VALIDATION_ERROR on role
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["role"]


def test_create_user_with_bad_email_and_short_password(api, envelope):
    # Given a tenant admin
    tenant = api.register()
    # When it creates a user with an invalid email and a five-character password
    response = api.request(
        "POST", "/users", tenant.admin_token, json=new_user(email="nobody", password="Zq9#x")
    )
    # Then 400 VALIDATION_ERROR on both fields, echoing the email but never the password
    data = envelope(response, 400, "VALIDATION_ERROR")
    items = {item["field"]: item for item in data["validation"]}
    assert set(items) == {"email", "password"}
    for item in items.values():
        assert set(item) == {"field", "message", "value"}
        assert item["message"]
    assert items["email"]["value"] == "nobody"
    assert items["password"]["value"] is None
    assert "Zq9#x" not in response.text


def test_duplicate_email_in_tenant_is_409(api, envelope):
    # Given a user in a tenant
    tenant = api.register()
    body = new_user()
    assert api.request("POST", "/users", tenant.admin_token, json=body).status_code == 201
    # When another user is created with the same email, in another case
    again = new_user("manager", email=str(body["email"]).upper())
    response = api.request("POST", "/users", tenant.admin_token, json=again)
    # Then 409 USER_EXISTS and no second user exists
    envelope(response, 409, "USER_EXISTS")
    users = api.request("GET", "/users", tenant.admin_token).json()["users"]
    assert len(users) == 2


def test_admin_email_is_taken_within_its_tenant(api, envelope):
    # Given a tenant whose admin registered with an email
    tenant = api.register()
    # When a user is created with the admin's email
    response = api.request(
        "POST", "/users", tenant.admin_token, json=new_user(email=f"admin@{tenant.name}.example.com")
    )
    # Then 409 USER_EXISTS
    envelope(response, 409, "USER_EXISTS")


def test_same_email_in_another_tenant_is_allowed(api):
    # Given a user in one tenant
    first = api.register()
    body = new_user()
    assert api.request("POST", "/users", first.admin_token, json=body).status_code == 201
    # When another tenant creates a user with the same email
    second = api.register()
    response = api.request("POST", "/users", second.admin_token, json=body)
    # Then it is created, in the second tenant
    assert response.status_code == 201, response.text
    assert response.json()["user"]["tenant_id"] == second.id


# --- GET /users and GET /users/{id} -------------------------------------------------------


@pytest.mark.parametrize("reader", ["admin", "manager"])
def test_admin_and_manager_list_the_tenant_users(api, assert_no_secrets, reader):
    # Given a tenant with an admin, a manager and a user
    tenant = api.register()
    manager_id, manager_token = api.create_user(tenant, "manager")
    user_id, user_token = api.create_user(tenant, "user")
    token = tenant.admin_token if reader == "admin" else manager_token
    # When the users are listed
    response = api.request("GET", "/users", token)
    # Then every user of the tenant is listed with its public fields, and no token
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["success"] is True
    assert {user["id"] for user in data["users"]} == {tenant.admin_id, manager_id, user_id}
    roles = {user["id"]: user["role"] for user in data["users"]}
    assert roles == {tenant.admin_id: "admin", manager_id: "manager", user_id: "user"}
    for user in data["users"]:
        assert {"id", "tenant_id", "email", "role", "active", "created_at", "updated_at"} <= set(user)
    assert_no_secrets(
        response, tokens=(tenant.admin_token, manager_token, user_token), passwords=("secret123",)
    )


def test_plain_user_cannot_list_users(api):
    # Given a plain user
    tenant = api.register()
    _, token = api.create_user(tenant, "user")
    # When it lists the users
    response = api.request("GET", "/users", token)
    # Then 403
    assert response.status_code == 403
    assert response.json() == INSUFFICIENT_PERMISSIONS


@pytest.mark.parametrize("reader", ["admin", "manager"])
def test_admin_and_manager_read_any_user(api, assert_no_secrets, reader):
    # Given a tenant with a manager and a user
    tenant = api.register()
    _, manager_token = api.create_user(tenant, "manager")
    user_id, user_token = api.create_user(tenant, "user")
    token = tenant.admin_token if reader == "admin" else manager_token
    # When each user is read
    for target in (tenant.admin_id, user_id):
        response = api.request("GET", f"/users/{target}", token)
        # Then it is returned without any token
        assert response.status_code == 200, response.text
        assert response.json()["user"]["id"] == target
        assert_no_secrets(response, tokens=(tenant.admin_token, manager_token, user_token))


def test_user_reads_itself_but_no_one_else(api, assert_no_secrets):
    # Given a plain user and a colleague
    tenant = api.register()
    user_id, token = api.create_user(tenant, "user")
    colleague_id, _ = api.create_user(tenant, "user")
    # When it reads itself
    response = api.request("GET", f"/users/{user_id}", token)
    # Then it sees its own record, without its token
    assert response.status_code == 200, response.text
    assert response.json()["user"]["id"] == user_id
    assert response.json()["user"]["role"] == "user"
    assert_no_secrets(response, tokens=(token,))
    # When it reads a colleague or the admin
    for other in (colleague_id, tenant.admin_id):
        response = api.request("GET", f"/users/{other}", token)
        # Then 403
        assert response.status_code == 403
        assert response.json() == INSUFFICIENT_PERMISSIONS


@pytest.mark.parametrize("user_id", ["6bb1617b-f403-4d65-8c73-fb7258e915b9", "nobody", "x" * 2000])
def test_unknown_user_is_404(api, envelope, user_id):
    # Given a tenant admin
    tenant = api.register()
    # When it reads or updates a user id that does not exist
    for method, body in (("GET", None), ("PUT", {"active": False})):
        response = api.request(method, f"/users/{user_id}", tenant.admin_token, json=body)
        # Then 404 USER_NOT_FOUND
        envelope(response, 404, "USER_NOT_FOUND")


# --- GET /status ------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "manager", "user"])
def test_status_reports_the_caller(api, assert_no_secrets, role):
    # Given a user of each role
    tenant = api.register()
    if role == "admin":
        user_id, token = tenant.admin_id, tenant.admin_token
    else:
        user_id, token = api.create_user(tenant, role)
    # When it calls GET /status
    response = api.request("GET", "/status", token)
    # Then it gets exactly its user, its tenant and its devices (none yet), and no token
    assert response.status_code == 200, response.text
    data = response.json()
    assert set(data) == {"success", "user", "tenant", "devices"}
    assert data["success"] is True
    assert set(data["user"]) == {"id", "email", "role", "tenant_id", "active"}
    assert data["user"]["id"] == user_id
    assert data["user"]["role"] == role
    assert data["user"]["tenant_id"] == tenant.id
    assert data["user"]["active"] is True
    assert data["tenant"] == {"id": tenant.id, "name": tenant.name}
    assert data["devices"] == []
    assert_no_secrets(response, tokens=(token,))


# --- secrets ----------------------------------------------------------------------------


def test_only_creation_responses_carry_a_token(api, assert_no_secrets):
    # Given a tenant with a manager and a user, whose tokens were shown once at creation
    tenant = api.register()
    manager_id, manager_token = api.create_user(tenant, "manager")
    user_id, user_token = api.create_user(tenant, "user")
    tokens = (tenant.admin_token, manager_token, user_token)
    # When every other operation is called
    responses = [
        api.request("GET", "/users", tenant.admin_token),
        api.request("GET", "/users", manager_token),
        api.request("GET", f"/users/{user_id}", tenant.admin_token),
        api.request("GET", f"/users/{user_id}", user_token),
        api.request("GET", f"/users/{manager_id}", manager_token),
        api.request("PUT", f"/users/{user_id}", tenant.admin_token, json={"role": "manager"}),
        api.request("PUT", f"/users/{user_id}", manager_token, json={"role": "user"}),
        api.request("GET", "/status", tenant.admin_token),
        api.request("GET", "/status", manager_token),
        api.request("GET", "/status", user_token),
        api.request("GET", "/tenants", api.master_token),
        api.request("GET", f"/global/tenants/{tenant.id}", api.master_token),
    ]
    # Then none of them carries a token, a password or a hash
    for response in responses:
        assert response.status_code == 200, response.text
        assert_no_secrets(response, tokens=tokens, passwords=("secret123",))
    # And neither does the deletion of the tenant
    response = api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token)
    assert response.status_code == 200
    assert_no_secrets(response, tokens=tokens, passwords=("secret123",))


def test_tokens_and_passwords_are_stored_only_as_digests(api, stack):
    import hashlib

    import boto3

    from gateway.config import get_settings

    settings = get_settings()
    dynamodb = boto3.client(
        "dynamodb",
        endpoint_url=stack.endpoint,
        region_name=settings.aws_region,
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    # Given a tenant and a user created with known passwords
    tenant = api.register()
    password = f"pw-{uuid.uuid4().hex}"
    body = new_user("manager", password=password)
    created = api.request("POST", "/users", tenant.admin_token, json=body).json()["user"]
    # When the stored records are read straight from the tables
    users = dynamodb.query(
        TableName=settings.users_table,
        KeyConditionExpression="tenant_id = :t",
        ExpressionAttributeValues={":t": {"S": tenant.id}},
        ConsistentRead=True,
    )["Items"]
    stored = json.dumps(users)
    # Then no plain token or password is stored, passwords are salted scrypt hashes
    for token in (tenant.admin_token, created["token"]):
        assert token not in stored
    assert password not in stored
    assert "secret123" not in stored
    hashes = [item["password_hash"]["S"] for item in users]
    assert len(hashes) == 2
    assert all(value.startswith("scrypt$") for value in hashes)
    assert len(set(hashes)) == 2
    # And the token record is keyed by the SHA-256 digest of the token
    for token in (tenant.admin_token, created["token"]):
        digest = hashlib.sha256(token.lower().encode()).hexdigest()
        record = dynamodb.get_item(
            TableName=settings.tokens_table, Key={"token_hash": {"S": digest}}, ConsistentRead=True
        )["Item"]
        assert token not in json.dumps(record)
