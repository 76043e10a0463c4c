"""Tenant isolation of the user routes and ``GET /status``: lists, reads and creations stay in
the caller's tenant, whatever tenant the query, headers or body name.

Apart from ``test_tenant_isolation.py`` (every id route against every other tenant's id)
because these check what a tenant sees of its own users, not a foreign id.
"""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.e2e


def test_plain_user_cannot_probe_other_tenants_ids(api):
    # Given a plain user and another tenant
    mine = api.register()
    other = api.register()
    _, token = api.create_user(mine, "user")
    # When it asks for the other tenant's admin, and for an id nobody has
    response = api.request("GET", f"/users/{other.admin_id}", token)
    unknown = api.request("GET", f"/users/{uuid.uuid4()}", token)
    # Then both get the same refusal: nothing tells it the other id exists
    assert response.status_code == unknown.status_code == 403
    assert response.json() == unknown.json() == {"error": "Insufficient permissions"}


def test_user_list_shows_only_the_callers_tenant(api):
    # Given two tenants with users of their own
    first = api.register()
    first_ids = {first.admin_id, api.create_user(first, "manager")[0], api.create_user(first, "user")[0]}
    second = api.register()
    second_ids = {second.admin_id, api.create_user(second, "user")[0]}
    # When each admin lists its users, even naming the other tenant in the query or headers
    for tenant, own, foreign in ((first, first_ids, second), (second, second_ids, first)):
        response = api.request(
            "GET",
            "/users",
            tenant.admin_token,
            params={"tenant_id": foreign.id},
            headers={"X-Tenant-Id": foreign.id},
        )
        # Then it sees exactly its own tenant's users
        assert response.status_code == 200, response.text
        users = response.json()["users"]
        assert {user["id"] for user in users} == own
        assert {user["tenant_id"] for user in users} == {tenant.id}


def test_status_shows_only_the_callers_tenant(api):
    # Given two tenants
    first = api.register()
    second = api.register()
    _, user_token = api.create_user(second, "user")
    # When a user of each calls GET /status, naming the other tenant in the query and headers
    for token, tenant, foreign in ((first.admin_token, first, second), (user_token, second, first)):
        response = api.request(
            "GET", "/status", token, params={"tenant_id": foreign.id}, headers={"X-Tenant-Id": foreign.id}
        )
        # Then it reports its own tenant only
        assert response.status_code == 200, response.text
        data = response.json()
        assert data["tenant"] == {"id": tenant.id, "name": tenant.name}
        assert data["user"]["tenant_id"] == tenant.id
        assert foreign.id not in response.text
        assert foreign.name not in response.text


def test_created_user_lands_in_the_callers_tenant(api):
    # Given two tenants
    mine = api.register()
    other = api.register()
    body = {
        "email": f"p-{uuid.uuid4().hex[:8]}@example.com",
        "password": "secret123",
        "role": "user",
        "tenant_id": other.id,
    }
    # When an admin creates a user while naming the other tenant in the body
    response = api.request("POST", "/users", mine.admin_token, json=body, headers={"X-Tenant-Id": other.id})
    # Then the user belongs to the caller's tenant, and the other tenant did not gain a user
    assert response.status_code == 201, response.text
    user = response.json()["user"]
    assert user["tenant_id"] == mine.id
    assert user["id"] in {u["id"] for u in api.request("GET", "/users", mine.admin_token).json()["users"]}
    assert len(api.request("GET", "/users", other.admin_token).json()["users"]) == 1


def test_same_email_in_two_tenants_are_two_separate_users(api):
    # Given the same email registered as a user in two tenants
    first = api.register()
    second = api.register()
    email = f"shared-{uuid.uuid4().hex[:8]}@example.com"
    body = {"email": email, "password": "secret123", "role": "manager"}
    first_user = api.request("POST", "/users", first.admin_token, json=body).json()["user"]
    second_user = api.request("POST", "/users", second.admin_token, json=body).json()["user"]
    # When the first one is deactivated
    api.request("PUT", f"/users/{first_user['id']}", first.admin_token, json={"active": False})
    # Then the second one, with its own id and token, is unaffected
    assert first_user["id"] != second_user["id"]
    assert first_user["token"] != second_user["token"]
    assert api.request("GET", "/status", first_user["token"]).status_code == 401
    status = api.request("GET", "/status", second_user["token"])
    assert status.status_code == 200
    assert status.json()["tenant"]["id"] == second.id
