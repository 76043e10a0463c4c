"""The real Lambda handlers, driven with the sample events of ``events/``.

Each test loads an API Gateway HTTP API (payload format 2.0) event from ``events/``,
replaces its placeholders with a token and ids made by an earlier call, and invokes the
deployed entry point of its function (``platform_api.handler.handler`` etc., see
``lambda_invoke``) with a fake Lambda context, against the tables of the local stack (moto).
This is what ``sam local invoke`` does, without Docker: Mangum, Powertools and the FastAPI app
all run. The platform and users functions are driven here; the devices, webhooks, messages and
delivery functions in ``test_lambda_handlers_devices.py``. Every API Gateway sample is checked
for the route its function serves in ``test_lambda_sample_events.py``.
"""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import urlencode

import pytest
from lambda_invoke import RegisteredTenant, invoke, register_tenant

from local_stack.sample_events import load_event
from local_stack.stack import LocalStack

# Every invocation ends with Powertools' "No application metrics to publish" warning, because
# the handlers are wrapped in `metrics.log_metrics` but publish no metric yet.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish:UserWarning")


def as_route(event: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    """The same event sent as ``method path``, unmatched by API Gateway (so ``$default``)."""
    event = json.loads(json.dumps(event))
    event.update(routeKey="$default", rawPath=path)
    event["requestContext"].update(routeKey="$default")
    event["requestContext"]["http"].update(method=method, path=path)
    event.pop("pathParameters", None)
    return event


@pytest.fixture(scope="module")
def master_token(stack: LocalStack) -> str:
    return stack.master_token


@pytest.fixture(scope="module")
def tenant(master_token: str) -> RegisteredTenant:
    return register_tenant(master_token)


@pytest.fixture(scope="module")
def manager(tenant: RegisteredTenant) -> dict[str, Any]:
    """A manager created by the tenant's admin through POST /users; the user view plus its token."""
    body = {"email": f"manager-{uuid.uuid4().hex[:8]}@{tenant.name}.example.com", "password": "secret123"}
    event = load_event("users-create", body={**body, "role": "manager"}, user_token=tenant.admin_token)
    response = invoke("users-create", event)
    assert response.status == 201, response.body
    return response.body["user"]


# --- platform function -----------------------------------------------------------------------


def test_register_answers_201_with_the_admin_token(master_token: str) -> None:
    # Given register.json with the master token and a tenant name not taken yet
    name = f"lambda-{uuid.uuid4().hex[:12]}"
    body = {"tenant_name": name, "email": f"Admin@{name}.example.com", "password": "secret123"}
    event = load_event("register", body=body, master_token=master_token)

    # When the platform function handles it
    response = invoke("register", event)

    # Then the tenant and its admin exist, and the only copy of the admin token is returned
    assert response.status == 201, response.body
    assert response.body["success"] is True
    assert response.body["tenant"]["name"] == name
    assert response.body["user"]["role"] == "admin"
    assert response.body["user"]["email"] == f"admin@{name}.example.com"
    assert response.body["user"]["tenant_id"] == response.body["tenant"]["id"]
    assert str(uuid.UUID(response.body["token"], version=4)) == response.body["token"]
    assert response.body["webhook_configured"] is False
    assert "password_hash" not in response.body["user"]
    assert "token_hash" not in response.body["user"]


def test_register_again_with_the_same_name_is_a_conflict(master_token: str, tenant: RegisteredTenant) -> None:
    # Given a tenant registered already
    body = {"tenant_name": tenant.name, "email": f"other@{tenant.name}.example.com", "password": "secret123"}

    # When register.json names it again
    response = invoke("register", load_event("register", body=body, master_token=master_token))

    # Then the standard 409 envelope answers
    assert response.status == 409
    assert response.body["error_code"] == "TENANT_EXISTS"


def test_tenants_list_shows_the_tenant_with_its_counts(master_token: str, tenant: RegisteredTenant) -> None:
    # Given a registered tenant (with its admin)
    event = load_event("tenants-list", master_token=master_token)

    # When tenants-list.json is invoked with the master token, and again for every next page
    response = invoke("tenants-list", event)
    assert response.status == 200, response.body
    assert response.body["success"] is True
    listed = {item["id"]: item for item in response.body["tenants"]}
    while response.body["next"] is not None:
        query = {"limit": "200", "cursor": response.body["next"]}
        paged = {**event, "queryStringParameters": query, "rawQueryString": urlencode(query)}
        response = invoke("tenants-list", paged)
        assert response.status == 200, response.body
        listed.update({item["id"]: item for item in response.body["tenants"]})

    # Then the tenant is listed with its user and device counts
    assert listed[tenant.id]["name"] == tenant.name
    assert listed[tenant.id]["users_count"] >= 1
    assert listed[tenant.id]["devices_count"] == 0


def test_tenants_list_refuses_a_user_token(tenant: RegisteredTenant) -> None:
    # Given tenants-list.json carrying a tenant admin's token instead of the master token
    event = load_event("tenants-list", master_token=tenant.admin_token)

    # When it is invoked
    response = invoke("tenants-list", event)

    # Then the master-token check refuses it
    assert response.status == 401
    assert response.body == {"success": False, "error": "invalid master token"}


def test_tenant_get_answers_the_tenant(master_token: str, tenant: RegisteredTenant) -> None:
    # Given tenant-get.json for a registered tenant
    event = load_event("tenant-get", master_token=master_token, tenant_id=tenant.id)

    # When it is invoked
    response = invoke("tenant-get", event)

    # Then the tenant comes back with its counts
    assert response.status == 200, response.body
    assert response.body["tenant"]["id"] == tenant.id
    assert response.body["tenant"]["name"] == tenant.name
    assert response.body["tenant"]["users_count"] >= 1


def test_tenant_get_of_an_unknown_tenant_is_404(master_token: str) -> None:
    # Given tenant-get.json for a tenant id nobody registered
    event = load_event("tenant-get", master_token=master_token, tenant_id=str(uuid.uuid4()))

    # When it is invoked
    response = invoke("tenant-get", event)

    # Then the standard 404 envelope answers
    assert response.status == 404
    assert response.body["error_code"] == "TENANT_NOT_FOUND"


def test_tenant_delete_removes_the_tenant_and_its_users_access(master_token: str) -> None:
    # Given a tenant of its own, with a second user
    doomed = register_tenant(master_token)
    body = {"email": f"user@{doomed.name}.example.com", "password": "secret123", "role": "user"}
    created = invoke("users-create", load_event("users-create", body=body, user_token=doomed.admin_token))
    assert created.status == 201, created.body

    # When tenant-delete.json is invoked for it
    response = invoke(
        "tenant-delete", load_event("tenant-delete", master_token=master_token, tenant_id=doomed.id)
    )

    # Then both users are gone, the tenant is not found, and the admin's token no longer works
    assert response.status == 200, response.body
    assert response.body == {"success": True, "deleted": {"users": 2, "devices": 0, "webhooks": 0}}
    again = invoke("tenant-get", load_event("tenant-get", master_token=master_token, tenant_id=doomed.id))
    assert again.status == 404
    status = invoke("status", load_event("status", user_token=doomed.admin_token))
    assert status.status == 401
    assert status.body == {"error": "Invalid token"}


def test_unknown_route_reaches_the_catch_all_and_is_404() -> None:
    # Given unknown-route.json: GET /does-not-exist, matched by API Gateway's $default route only
    event = load_event("unknown-route")

    # When the platform function (owner of $default) handles it
    response = invoke("unknown-route", event)

    # Then the gateway's standard 404 envelope answers, not API Gateway's or Starlette's body
    assert response.status == 404
    assert response.body["success"] is False
    assert response.body["error_code"] == "NOT_FOUND"
    assert response.body["error"] == "route not found: GET /does-not-exist"
    assert response.body["timestamp"].endswith("Z")


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("DELETE", "/status", "GET"),
        ("GET", "/register", "POST"),
        ("POST", "/users/0f8e4c7a-2f9b-4a8e-9a1d-3b5c6d7e8f90", "GET, PUT"),
        ("POST", "/global/tenants/0f8e4c7a-2f9b-4a8e-9a1d-3b5c6d7e8f90", "DELETE, GET, PATCH"),
    ],
)
def test_known_path_with_another_method_through_the_catch_all_is_405(
    method: str, path: str, allow: str
) -> None:
    # Given a request to a known path with a method no route has, which API Gateway sends to $default
    event = as_route(load_event("unknown-route"), method, path)

    # When the platform function's catch-all handles it
    response = invoke("unknown-route", event)

    # Then 405 METHOD_NOT_ALLOWED answers with the methods the path does have
    assert response.status == 405
    assert response.body["error_code"] == "METHOD_NOT_ALLOWED"
    assert response.headers["allow"] == allow


# --- users function --------------------------------------------------------------------------


def test_users_create_answers_201_with_the_new_users_token(
    tenant: RegisteredTenant, manager: dict[str, Any]
) -> None:
    # Given the manager created by the admin with users-create.json (fixture `manager`)
    # When the new user's token is used on its own record with user-get.json
    event = load_event("user-get", user_token=manager["token"], user_id=manager["id"])
    response = invoke("user-get", event)

    # Then the creation gave a working UUID v4 token for a user of the admin's tenant
    assert str(uuid.UUID(manager["token"], version=4)) == manager["token"]
    assert manager["tenant_id"] == tenant.id
    assert manager["role"] == "manager"
    assert manager["active"] is True
    assert response.status == 200, response.body
    assert response.body["user"]["id"] == manager["id"]
    assert "token" not in response.body["user"]


def test_users_create_sample_body_is_accepted(tenant: RegisteredTenant) -> None:
    # Given users-create.json exactly as shipped, only the token replaced
    event = load_event("users-create", user_token=tenant.admin_token)

    # When the admin invokes it
    response = invoke("users-create", event)

    # Then the sample's user is created with the sample's email and role
    assert response.status == 201, response.body
    sample = json.loads(event["body"])
    assert response.body["user"]["email"] == sample["email"]
    assert response.body["user"]["role"] == sample["role"]


def test_users_list_shows_the_tenants_users(tenant: RegisteredTenant, manager: dict[str, Any]) -> None:
    # Given a tenant with its admin and a manager
    event = load_event("users-list", user_token=tenant.admin_token)

    # When the admin invokes users-list.json
    response = invoke("users-list", event)

    # Then both are listed, without tokens or password hashes
    assert response.status == 200, response.body
    ids = [user["id"] for user in response.body["users"]]
    assert tenant.admin_id in ids
    assert manager["id"] in ids
    assert all({"token", "token_hash", "password_hash"}.isdisjoint(user) for user in response.body["users"])
    assert all(user["tenant_id"] == tenant.id for user in response.body["users"])


def test_user_get_answers_the_user(tenant: RegisteredTenant, manager: dict[str, Any]) -> None:
    # Given user-get.json for the manager, sent by the admin
    event = load_event("user-get", user_token=tenant.admin_token, user_id=manager["id"])

    # When it is invoked
    response = invoke("user-get", event)

    # Then the manager's public view comes back
    assert response.status == 200, response.body
    assert response.body["user"]["id"] == manager["id"]
    assert response.body["user"]["email"] == manager["email"]
    assert response.body["user"]["tenant_id"] == tenant.id


def test_user_get_of_another_tenants_user_is_404(master_token: str, manager: dict[str, Any]) -> None:
    # Given the admin of another tenant
    other = register_tenant(master_token)
    event = load_event("user-get", user_token=other.admin_token, user_id=manager["id"])

    # When it asks for a user of the first tenant
    response = invoke("user-get", event)

    # Then the user does not exist for it
    assert response.status == 404
    assert response.body["error_code"] == "USER_NOT_FOUND"


def test_user_update_changes_the_role(tenant: RegisteredTenant) -> None:
    # Given a manager of the tenant and user-update.json (body {"role": "user"}) sent by the admin
    body = {"email": f"demoted-{uuid.uuid4().hex[:8]}@{tenant.name}.example.com", "password": "secret123"}
    created = invoke(
        "users-create",
        load_event("users-create", body={**body, "role": "manager"}, user_token=tenant.admin_token),
    )
    assert created.status == 201, created.body
    target = created.body["user"]
    event = load_event("user-update", user_token=tenant.admin_token, user_id=target["id"])

    # When it is invoked
    response = invoke("user-update", event)

    # Then the user is now a plain user, and its own token carries the new role at once
    assert response.status == 200, response.body
    assert response.body["user"]["role"] == "user"
    assert response.body["user"]["updated_at"] >= target["updated_at"]
    listing = invoke("users-list", load_event("users-list", user_token=target["token"]))
    assert listing.status == 403
    assert listing.body == {"error": "Insufficient permissions"}


def test_status_answers_the_caller_and_its_tenant(tenant: RegisteredTenant) -> None:
    # Given status.json with the admin's token
    event = load_event("status", user_token=tenant.admin_token)

    # When the users function handles it
    response = invoke("status", event)

    # Then the caller, its tenant and its (no) devices come back
    assert response.status == 200, response.body
    assert response.body["success"] is True
    assert response.body["user"] == {
        "id": tenant.admin_id,
        "email": f"admin@{tenant.name}.example.com",
        "role": "admin",
        "tenant_id": tenant.id,
        "active": True,
    }
    assert response.body["tenant"] == {"id": tenant.id, "name": tenant.name}
    assert response.body["devices"] == []


def test_request_id_is_api_gateways_even_on_errors(tenant: RegisteredTenant) -> None:
    # Given an event with a request id of its own and a malformed body
    event = load_event("users-create", user_token=tenant.admin_token)
    event["requestContext"]["requestId"] = "Zz9yXwHJoAMEabc="
    event["body"] = "{not json"
    event["headers"]["content-length"] = str(len(event["body"]))

    # When it is invoked
    response = invoke("users-create", event)

    # Then the error envelope carries that request id too (checked by `invoke`)
    assert response.status == 400
    assert response.body["error_code"] == "INVALID_JSON"
    assert response.headers["x-request-id"] == "Zz9yXwHJoAMEabc="
