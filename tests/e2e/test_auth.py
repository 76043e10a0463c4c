"""Authentication over HTTP: how the bearer token is read, what it costs, and when it stops working."""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.e2e

INVALID_TOKEN = {"error": "Invalid token"}
INSUFFICIENT_PERMISSIONS = {"error": "Insufficient permissions"}


def status_with_header(api, value: str):
    return api.request("GET", "/status", headers={"Authorization": value})


# --- how the token is read ---------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_bearer_scheme_word_is_matched_case_insensitively(api, scheme):
    # Given a tenant admin
    tenant = api.register()
    # When it sends its token with the scheme word in any case
    response = status_with_header(api, f"{scheme} {tenant.admin_token}")
    # Then it is authenticated as itself
    assert response.status_code == 200, response.text
    assert response.json()["user"]["id"] == tenant.admin_id


def test_bare_token_without_scheme_is_accepted(api):
    # Given a tenant admin
    tenant = api.register()
    # When it sends the token alone in the Authorization header
    response = status_with_header(api, tenant.admin_token)
    # Then it is authenticated as itself
    assert response.status_code == 200, response.text
    assert response.json()["user"]["id"] == tenant.admin_id


@pytest.mark.parametrize("name", ["token", "access_token", "authorization", "Authorization", "bearer"])
def test_token_in_query_string_is_not_read(api, name):
    # Given a valid token
    tenant = api.register()
    # When it is sent only as a query parameter
    response = api.request("GET", "/status", params={name: tenant.admin_token})
    # Then the request is unauthenticated
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN


@pytest.mark.parametrize("name", ["token", "access_token", "Authorization", "authorization", "session"])
def test_token_in_cookie_is_not_read(api, name):
    # Given a valid token
    tenant = api.register()
    # When it is sent only as a cookie (raw and as "Bearer <token>")
    for value in (tenant.admin_token, f"Bearer {tenant.admin_token}"):
        response = api.request("GET", "/status", headers={"Cookie": f'{name}="{value}"'})
        # Then the request is unauthenticated
        assert response.status_code == 401, response.text
        assert response.json() == INVALID_TOKEN


@pytest.mark.parametrize("name", ["token", "access_token", "authorization", "Authorization"])
def test_token_in_form_field_is_not_read(api, name):
    # Given a valid admin token
    tenant = api.register()
    form = {
        name: tenant.admin_token,
        "email": f"form-{uuid.uuid4().hex[:8]}@example.com",
        "password": "secret123",
        "role": "user",
    }
    # When it is sent only as a form field of an otherwise valid POST /users
    response = api.request("POST", "/users", data=form)
    # Then the request is unauthenticated and nobody was created
    assert response.status_code == 401, response.text
    assert response.json() == INVALID_TOKEN
    users = api.request("GET", "/users", tenant.admin_token).json()["users"]
    assert [user["email"] for user in users] == [f"admin@{tenant.name}.example.com"]


@pytest.mark.parametrize("scheme", ["Basic", "Token", "Digest", "Bearer:"])
def test_other_scheme_is_rejected(api, scheme):
    # Given a valid token
    tenant = api.register()
    # When it is sent with another scheme word
    response = status_with_header(api, f"{scheme} {tenant.admin_token}")
    # Then the request is unauthenticated
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN


def test_basic_credentials_are_rejected(api):
    # Given no token at all but basic credentials
    # When a tenant route is called with them
    response = status_with_header(api, "Basic x")
    # Then 401 Invalid token
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/status", None),
        ("GET", "/users", None),
        ("POST", "/users", {"email": "x@example.com", "password": "secret123", "role": "user"}),
        ("GET", "/users/{id}", None),
        ("PUT", "/users/{id}", {"active": False}),
    ],
)
def test_missing_header_gives_exactly_invalid_token(api, method, path, body):
    # Given a tenant (so the ids in the path exist)
    tenant = api.register()
    # When a tenant route is called without an Authorization header
    response = api.request(method, path.format(id=tenant.admin_id), json=body)
    # Then 401 with exactly the documented body
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN
    # And nothing changed
    admin = api.request("GET", f"/users/{tenant.admin_id}", tenant.admin_token).json()["user"]
    assert admin["active"] is True


@pytest.mark.parametrize("value", ["", "Bearer", "Bearer ", "Bearer  ", "Bearer a b"])
def test_empty_or_malformed_header_is_rejected(api, value):
    # Given a header without a usable token
    # When a tenant route is called with it
    response = status_with_header(api, value)
    # Then 401 Invalid token
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN


def test_malformed_json_without_token_is_unauthenticated(api):
    # Given no token
    # When a tenant route is sent a body that is not JSON
    response = api.request("POST", "/users", data=b"{not json", headers={"Content-Type": "application/json"})
    # Then the missing token is what is reported: 401 Invalid token
    assert response.status_code == 401, response.text
    assert response.json() == INVALID_TOKEN


def test_unknown_uuid4_token_is_rejected(api):
    # Given a well-formed UUID v4 that belongs to nobody
    token = str(uuid.uuid4())
    # When it is used
    response = api.request("GET", "/status", token)
    # Then 401 Invalid token
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN


NOT_UUID4 = [
    "not-a-token",
    "12345",
    str(uuid.uuid1()),
    "00000000-0000-0000-0000-000000000000",
    str(uuid.uuid4()).replace("-", ""),
    "{" + str(uuid.uuid4()) + "}",
    str(uuid.uuid4()) + "0",
    str(uuid.uuid4())[:-1],
    "x" * 4096,
]


@pytest.mark.parametrize("token", NOT_UUID4, ids=range(len(NOT_UUID4)))
def test_non_uuid4_token_is_rejected_without_any_database_read(api, stack, dynamodb_calls, token):
    # Given a token that is not a UUID v4
    # When a tenant route is called with it
    response = api.request("GET", "/status", token)
    # Then 401 Invalid token, decided without touching DynamoDB
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN
    assert dynamodb_calls.calls == []


def test_authenticated_request_costs_exactly_one_token_read(api, dynamodb_calls):
    from gateway.config import get_settings

    tokens_table = get_settings().tokens_table
    # Given a user with a valid token
    tenant = api.register()
    _, token = api.create_user(tenant, "user")
    dynamodb_calls.reset()
    # When it calls GET /status
    response = api.request("GET", "/status", token)
    # Then authentication cost exactly one DynamoDB read: a GetItem on the tokens table
    assert response.status_code == 200, response.text
    token_calls = [call for call in dynamodb_calls.calls if call[1] == tokens_table]
    assert token_calls == [("GetItem", tokens_table)], dynamodb_calls.calls


def test_rejected_unknown_token_costs_one_read(api, dynamodb_calls):
    # Given an unknown UUID v4
    dynamodb_calls.reset()
    # When it is used
    response = api.request("GET", "/users", str(uuid.uuid4()))
    # Then it was refused after one read and nothing else was touched
    assert response.status_code == 401
    assert [operation for operation, _ in dynamodb_calls.calls] == ["GetItem"]


def test_master_token_is_not_a_tenant_token(api):
    # Given the platform master token
    # When it is used on tenant routes
    for method, path in [("GET", "/status"), ("GET", "/users"), ("POST", "/users")]:
        response = api.request(
            method, path, api.master_token, json={"email": "m@example.com", "password": "secret123"}
        )
        # Then 401 Invalid token: it belongs to no tenant
        assert response.status_code == 401, (path, response.text)
        assert response.json() == INVALID_TOKEN


# --- when a token stops and starts working ------------------------------------------------


def test_deactivated_user_is_rejected_on_the_very_next_request(api):
    # Given a user whose token works
    tenant = api.register()
    user_id, token = api.create_user(tenant, "user")
    assert api.request("GET", "/status", token).status_code == 200
    # When an admin deactivates it
    update = api.request("PUT", f"/users/{user_id}", tenant.admin_token, json={"active": False})
    assert update.status_code == 200, update.text
    # Then the very next request with its token is 401 Invalid token
    response = api.request("GET", "/status", token)
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN
    # And so are its other routes
    response = api.request("GET", f"/users/{user_id}", token)
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN


def test_reactivation_restores_the_same_token(api):
    # Given a deactivated manager
    tenant = api.register()
    user_id, token = api.create_user(tenant, "manager")
    api.request("PUT", f"/users/{user_id}", tenant.admin_token, json={"active": False})
    assert api.request("GET", "/users", token).status_code == 401
    # When it is reactivated
    update = api.request("PUT", f"/users/{user_id}", tenant.admin_token, json={"active": True})
    assert update.status_code == 200, update.text
    # Then its same token works again, with its role
    response = api.request("GET", "/users", token)
    assert response.status_code == 200, response.text
    assert api.request("GET", "/status", token).json()["user"]["active"] is True


def test_deactivated_manager_cannot_use_manager_rights(api):
    # Given a manager deactivated by a fellow manager
    tenant = api.register()
    manager_id, manager_token = api.create_user(tenant, "manager")
    _, other_manager_token = api.create_user(tenant, "manager")
    update = api.request("PUT", f"/users/{manager_id}", other_manager_token, json={"active": False})
    assert update.status_code == 200, update.text
    # When it tries to reactivate itself
    response = api.request("PUT", f"/users/{manager_id}", manager_token, json={"active": True})
    # Then it is unauthenticated
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN


def test_demotion_takes_effect_on_the_next_request(api):
    # Given a manager who can list users
    tenant = api.register()
    manager_id, token = api.create_user(tenant, "manager")
    assert api.request("GET", "/users", token).status_code == 200
    # When an admin demotes it to user
    update = api.request("PUT", f"/users/{manager_id}", tenant.admin_token, json={"role": "user"})
    assert update.status_code == 200, update.text
    # Then its next request is judged with the new role
    response = api.request("GET", "/users", token)
    assert response.status_code == 403
    assert response.json() == INSUFFICIENT_PERMISSIONS
    assert api.request("GET", "/status", token).json()["user"]["role"] == "user"


def test_promotion_takes_effect_on_the_next_request(api):
    # Given a plain user who cannot create users
    tenant = api.register()
    user_id, token = api.create_user(tenant, "user")
    body = {"email": f"new-{uuid.uuid4().hex[:8]}@example.com", "password": "secret123", "role": "user"}
    assert api.request("POST", "/users", token, json=body).status_code == 403
    # When an admin promotes it to admin
    update = api.request("PUT", f"/users/{user_id}", tenant.admin_token, json={"role": "admin"})
    assert update.status_code == 200, update.text
    # Then its next request is judged with the new role
    response = api.request("POST", "/users", token, json=body)
    assert response.status_code == 201, response.text


def test_each_token_identifies_its_own_user_and_tenant(api):
    # Given two users of one tenant
    tenant = api.register()
    user_id, user_token = api.create_user(tenant, "user")
    # When each calls GET /status
    admin_view = api.request("GET", "/status", tenant.admin_token).json()
    user_view = api.request("GET", "/status", user_token).json()
    # Then each token resolves to its own user, in the same tenant, without any tenant id sent
    assert admin_view["user"]["id"] == tenant.admin_id
    assert user_view["user"]["id"] == user_id
    assert admin_view["tenant"]["id"] == user_view["tenant"]["id"] == tenant.id


# --- roles ------------------------------------------------------------------------------


def test_insufficient_role_gets_exactly_the_documented_body(api):
    # Given a plain user
    tenant = api.register()
    _, token = api.create_user(tenant, "user")
    # When it calls an admin-only and a manager route
    for method, path, body in [
        ("POST", "/users", {"email": "x@example.com", "password": "secret123", "role": "user"}),
        ("GET", "/users", None),
    ]:
        response = api.request(method, path, token, json=body)
        # Then 403 with exactly the documented body
        assert response.status_code == 403, response.text
        assert response.json() == INSUFFICIENT_PERMISSIONS


def test_admin_token_is_accepted_on_every_role_gated_route(api):
    # Given a tenant admin and another user
    tenant = api.register()
    user_id, _ = api.create_user(tenant, "user")
    body = {"email": f"a-{uuid.uuid4().hex[:8]}@example.com", "password": "secret123", "role": "manager"}
    # When it calls every user-management route
    calls = [
        ("POST", "/users", body, 201),
        ("GET", "/users", None, 200),
        ("GET", f"/users/{user_id}", None, 200),
        ("PUT", f"/users/{user_id}", {"role": "manager"}, 200),
        ("GET", "/status", None, 200),
    ]
    for method, path, json_body, expected in calls:
        response = api.request(method, path, tenant.admin_token, json=json_body)
        # Then each is allowed
        assert response.status_code == expected, (method, path, response.text)
        assert response.json()["success"] is True


def test_no_cookie_session_or_login_exchange_exists(api):
    # Given a registration and a few authenticated calls
    tenant = api.register()
    responses = [
        api.request("GET", "/status", tenant.admin_token),
        api.request("GET", "/users", tenant.admin_token),
        api.request("GET", "/status"),
    ]
    # Then no response sets a cookie
    for response in responses:
        assert "set-cookie" not in {name.lower() for name in response.headers}
    # And there is no login or session exchange to trade credentials for a token
    for path in ("/login", "/auth/login", "/token", "/session"):
        body = {"email": f"admin@{tenant.name}.example.com", "password": "secret123"}
        response = api.request("POST", path, json=body)
        assert response.status_code == 404, (path, response.text)
        assert tenant.admin_token not in response.text
