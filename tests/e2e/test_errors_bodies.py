"""Request bodies over HTTP that are refused: unreadable or wrongly shaped JSON, and the size limit."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest
from errors_steps import valid_user_body

pytestmark = pytest.mark.e2e


# --- bodies that cannot be read -------------------------------------------------------


def body_routes(api, tenant) -> list[tuple[str, str, str]]:
    """(method, path, token) of every route that reads a JSON body."""
    return [
        ("POST", "/users", tenant.admin_token),
        ("PUT", f"/users/{tenant.admin_id}", tenant.admin_token),
        ("POST", "/register", api.master_token),
    ]


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b'{"email": ', b"{'single': 'quotes'}", b'{"a": 1,}', b"\xff\xfe{}", b"nul\x00"],
    ids=["garbage", "truncated", "single-quotes", "trailing-comma", "not-utf8", "nul"],
)
def test_malformed_json_is_400_invalid_json(api, envelope, raw):
    # Given an authorised caller of each route that reads a body
    tenant = api.register()
    for method, path, token in body_routes(api, tenant):
        # When it sends a body that is not JSON
        response = api.request(method, path, token, data=raw, headers={"Content-Type": "application/json"})
        # Then 400 INVALID_JSON in the standard envelope
        envelope(response, 400, "INVALID_JSON")


@pytest.mark.parametrize(
    "raw",
    [b"[" * 100_000 + b"]" * 100_000, b'{"role": ' + b"9" * 5000 + b"}"],
    ids=["nested-too-deep", "integer-too-long"],
)
def test_json_the_parser_cannot_take_is_400_invalid_json(api, envelope, raw):
    # Given an authorised caller of each route that reads a body
    tenant = api.register()
    for method, path, token in body_routes(api, tenant):
        # When it sends JSON too deep or too long to be decoded
        response = api.request(method, path, token, data=raw, headers={"Content-Type": "application/json"})
        # Then 400 INVALID_JSON in the standard envelope
        envelope(response, 400, "INVALID_JSON")
    # And without a token the missing token is what is reported
    response = api.request("POST", "/users", data=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 401
    assert response.json() == {"error": "Invalid token"}


@pytest.mark.parametrize("raw", [b"[]", b'[{"email": "a@example.com"}]', b'"text"', b"42", b"true"])
def test_json_that_is_not_an_object_is_400_invalid_request_format(api, envelope, raw):
    # Given an authorised caller of each route that reads a body
    tenant = api.register()
    for method, path, token in body_routes(api, tenant):
        # When it sends valid JSON that is not an object
        response = api.request(method, path, token, data=raw, headers={"Content-Type": "application/json"})
        # Then 400 INVALID_REQUEST_FORMAT in the standard envelope
        envelope(response, 400, "INVALID_REQUEST_FORMAT")


def test_missing_body_is_400(api, envelope):
    # Given an admin
    tenant = api.register()
    # When it creates a user without any body
    response = api.request("POST", "/users", tenant.admin_token)
    # Then 400 in the standard envelope
    envelope(response, 400)


def test_validation_items_name_field_message_and_value(api, envelope):
    # Given an admin
    tenant = api.register()
    # When it creates a user with an invalid email and an unknown role
    body = {"email": "nope", "password": "secret123", "role": "boss"}
    response = api.request("POST", "/users", tenant.admin_token, json=body)
    # Then 400 VALIDATION_ERROR with one item per field: field, message and the offending value
    data = envelope(response, 400, "VALIDATION_ERROR")
    items = {item["field"]: item for item in data["validation"]}
    assert set(items) == {"email", "role"}
    for field, item in items.items():
        assert set(item) == {"field", "message", "value"}
        assert isinstance(item["message"], str)
        assert item["message"]
        assert item["value"] == body[field]


def test_malformed_json_from_a_plain_user_is_forbidden(api):
    # Given a plain user, who may not create users
    tenant = api.register()
    _, token = api.create_user(tenant, "user")
    # When it sends a malformed body to an admin-only route
    response = api.request(
        "POST", "/users", token, data=b"{not json", headers={"Content-Type": "application/json"}
    )
    # Then the lack of permission is what is reported
    assert response.status_code == 403, response.text
    assert response.json() == {"error": "Insufficient permissions"}


def test_malformed_json_without_master_token_requires_it(api):
    # Given no token
    # When POST /register is sent a malformed body
    response = api.request(
        "POST", "/register", data=b"{not json", headers={"Content-Type": "application/json"}
    )
    # Then the missing master token is what is reported
    assert response.status_code == 401, response.text
    assert response.json() == {"success": False, "error": "master token required"}


# --- body size limit --------------------------------------------------------------------


def send_declared_length(api, path: str, token: str, declared: int, sent: bytes) -> http.client.HTTPResponse:
    """A request that declares ``declared`` bytes of body but sends only ``sent``."""
    url = urlsplit(api.base_url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    connection.putrequest("POST", path)
    connection.putheader("Authorization", f"Bearer {token}")
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Content-Length", str(declared))
    connection.endheaders(sent)
    response = connection.getresponse()
    response.body = response.read()  # type: ignore[attr-defined]
    connection.close()
    return response


def test_body_declared_over_the_limit_is_413(api, is_rfc3339_utc):
    from gateway.config import get_settings

    limit = get_settings().max_body_bytes
    # Given an admin
    tenant = api.register()
    # When it declares a body one byte over the limit (and starts sending it)
    response = send_declared_length(api, "/users", tenant.admin_token, limit + 1, b'{"email": "')
    # Then 413 PAYLOAD_TOO_LARGE in the standard envelope, with the usual headers
    assert response.status == 413
    body = json.loads(response.body)  # type: ignore[attr-defined]
    assert body["success"] is False
    assert body["error_code"] == "PAYLOAD_TOO_LARGE"
    assert body["error"]
    assert is_rfc3339_utc(body["timestamp"])
    assert response.getheader("X-Request-Id")
    assert response.getheader("X-Gateway-Version")
    # And nothing was created
    assert len(api.request("GET", "/users", tenant.admin_token).json()["users"]) == 1


def test_body_of_exactly_the_limit_is_accepted(api):
    from gateway.config import get_settings

    limit = get_settings().max_body_bytes
    assert limit == 24 * 1024 * 1024  # the default of the local stack
    # Given an admin, and a valid user body padded to exactly the limit
    tenant = api.register()
    start = json.dumps(valid_user_body())[:-1].encode() + b', "padding": "'
    body = start + b"x" * (limit - len(start) - 2) + b'"}'
    assert len(body) == limit
    # When it is sent
    response = api.request(
        "POST", "/users", tenant.admin_token, data=body, headers={"Content-Type": "application/json"}
    )
    # Then it is not refused for its size: the user is created
    assert response.status_code == 201, response.text[:300]


@pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient` is deprecated")
def test_streamed_body_over_the_limit_is_413(api, stack, settings_override):
    from fastapi.testclient import TestClient

    from gateway.web import create_app
    from local_stack.apps import function_routers

    # Given a gateway app built with a 1 KiB body limit, and an admin
    tenant = api.register()
    settings_override(MAX_BODY_BYTES="1024")
    client = TestClient(create_app(*function_routers()), raise_server_exceptions=False)
    headers = {"Authorization": f"Bearer {tenant.admin_token}", "Content-Type": "application/json"}
    body = json.dumps(valid_user_body() | {"padding": "x" * 2048}).encode()

    def chunks():
        for start in range(0, len(body), 256):
            yield body[start : start + 256]

    # When a body over the limit is streamed without a declared length
    response = client.post("/users", content=chunks(), headers=headers)
    # Then 413 PAYLOAD_TOO_LARGE in the standard envelope, with the usual headers
    assert response.status_code == 413, response.text
    assert response.json()["error_code"] == "PAYLOAD_TOO_LARGE"
    assert response.json()["success"] is False
    assert response.headers["x-request-id"]
    assert response.headers["x-gateway-version"]
    # And a body under the limit still goes through
    small = client.post("/users", json=valid_user_body(), headers=headers)
    assert small.status_code == 201, small.text
