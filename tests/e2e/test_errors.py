"""Errors over HTTP: the standard envelope for framework-level failures, body limits, the headers
every response carries, and no leaked failures."""

from __future__ import annotations

import http.client
import json
import logging
import re
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.e2e

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


def valid_user_body() -> dict[str, str]:
    return {"email": f"e-{uuid.uuid4().hex[:10]}@example.com", "password": "secret123", "role": "user"}


# --- unknown routes and methods -------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/nope"),
        ("POST", "/nope"),
        ("GET", "/"),
        ("GET", "/users/a/b"),
        ("DELETE", "/global/tenants"),
        ("GET", "/global"),
        ("PUT", "/v1/users/x"),
    ],
)
@pytest.mark.parametrize("authenticated", [False, True], ids=["anonymous", "admin"])
def test_unknown_route_is_404_not_found(api, envelope, method, path, authenticated):
    # Given a caller, with or without a token
    token = api.register().admin_token if authenticated else None
    # When it calls a route that does not exist
    response = api.request(method, path, token, json={} if method in ("POST", "PUT") else None)
    # Then 404 NOT_FOUND in the standard envelope
    envelope(response, 404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/users", {"GET", "POST"}),
        ("PATCH", "/users/{id}", {"GET", "PUT"}),
        ("DELETE", "/users/{id}", {"GET", "PUT"}),
        ("POST", "/status", {"GET"}),
        ("GET", "/register", {"POST"}),
        ("POST", "/tenants", {"GET"}),
        ("PUT", "/global/tenants/{id}", {"GET", "DELETE"}),
    ],
)
def test_wrong_method_is_405_method_not_allowed(api, envelope, method, path, allowed):
    # Given a tenant
    tenant = api.register()
    # When a known path is called with a method it does not serve
    response = api.request(method, path.format(id=tenant.admin_id), tenant.admin_token, json={})
    # Then 405 METHOD_NOT_ALLOWED in the standard envelope, naming the methods it serves
    envelope(response, 405, "METHOD_NOT_ALLOWED")
    assert allowed <= {m.strip() for m in response.headers["allow"].split(",")}


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


# --- headers of every response ----------------------------------------------------------


def test_every_response_carries_request_id_and_version(api):
    from gateway import __version__

    # Given a tenant with a plain user
    tenant = api.register()
    user_id, user_token = api.create_user(tenant, "user")
    # When requests of every outcome are made
    responses = {
        "200": api.request("GET", "/status", tenant.admin_token),
        "201": api.request("POST", "/users", tenant.admin_token, json=valid_user_body()),
        "400": api.request("POST", "/users", tenant.admin_token, json={"email": "x"}),
        "400 json": api.request(
            "PUT",
            f"/users/{user_id}",
            tenant.admin_token,
            data=b"{",
            headers={"Content-Type": "application/json"},
        ),
        "401": api.request("GET", "/status"),
        "401 master": api.request("GET", "/tenants"),
        "403": api.request("GET", "/users", user_token),
        "404": api.request("GET", "/does-not-exist"),
        "404 user": api.request("GET", f"/users/{uuid.uuid4()}", tenant.admin_token),
        "405": api.request("DELETE", "/status", tenant.admin_token),
        "409": api.request("PUT", f"/users/{tenant.admin_id}", tenant.admin_token, json={"active": False}),
        "200 master": api.request("GET", f"/global/tenants/{tenant.id}", api.master_token),
    }
    # Then each carries a request id of its own and the gateway's semantic version
    request_ids = []
    for label, response in responses.items():
        assert str(response.status_code) == label.split()[0], (label, response.text)
        request_id = response.headers.get("X-Request-Id")
        assert request_id, label
        request_ids.append(request_id)
        version = response.headers.get("X-Gateway-Version")
        assert version, label
        assert SEMVER.match(version), version
        assert version == __version__
    assert len(set(request_ids)) == len(request_ids)


def test_repeated_identical_requests_get_distinct_request_ids(api):
    # Given one request repeated
    # When it is sent several times
    ids = {api.request("GET", "/status").headers["X-Request-Id"] for _ in range(5)}
    # Then each response has its own id
    assert len(ids) == 5


def test_request_id_is_in_the_service_logs(api):
    from gateway.observability import logger

    lines: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(logger.registered_formatter.format(record))

    handler = Capture()
    stdlib_logger = logging.getLogger(logger.service)
    stdlib_logger.addHandler(handler)
    try:
        # Given a registration, which the service logs
        response = api.request(
            "POST",
            "/register",
            api.master_token,
            json={
                "tenant_name": f"logged-{uuid.uuid4().hex[:8]}",
                "email": "a@example.com",
                "password": "secret123",
            },
        )
    finally:
        stdlib_logger.removeHandler(handler)
    # When its log lines are read
    assert response.status_code == 201, response.text
    request_id = response.headers["X-Request-Id"]
    tenant_id = response.json()["tenant"]["id"]
    logged = [json.loads(line) for line in lines if tenant_id in line]
    # Then they carry the id the response carried
    assert logged
    assert all(entry.get("request_id") == request_id for entry in logged), logged


def test_error_timestamp_is_current_utc(api):
    # Given an unknown route
    # When it is called
    body = api.request("GET", "/nowhere").json()
    # Then the timestamp is the current time in UTC
    stamp = datetime.fromisoformat(body["timestamp"].replace("Z", "+00:00"))
    assert stamp.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - stamp) < timedelta(minutes=1)


# --- nothing leaks ----------------------------------------------------------------------


def test_odd_requests_never_fail_with_a_server_error(api):
    # Given an admin and a plain user
    tenant = api.register()
    _, user_token = api.create_user(tenant, "user")
    deep = b"[" * 100_000 + b"]" * 100_000
    as_json = {"headers": {"Content-Type": "application/json"}}
    odd = [
        ("GET", "/users/%00", tenant.admin_token, {}),
        ("GET", "/users/%E2%82%AC", tenant.admin_token, {}),
        ("GET", "/users/..%2F..%2Fetc%2Fpasswd", tenant.admin_token, {}),
        ("PUT", "/users/%00", tenant.admin_token, {"json": {"active": False}}),
        ("GET", "/global/tenants/%00", api.master_token, {}),
        ("GET", "/global/tenants/%E2%82%AC", api.master_token, {}),
        ("POST", "/users", tenant.admin_token, {"data": deep, **as_json}),
        (
            "POST",
            "/users",
            tenant.admin_token,
            {"json": valid_user_body() | {"email": "a" * 10_000 + "@x.com"}},
        ),
        ("POST", "/users", tenant.admin_token, {"json": valid_user_body() | {"password": "p" * 100_000}}),
        ("POST", "/users", tenant.admin_token, {"json": valid_user_body() | {"webhook_url": "not a url"}}),
        ("POST", "/users", tenant.admin_token, {"json": {"email": None, "password": None, "role": None}}),
        (
            "POST",
            "/users",
            tenant.admin_token,
            {"data": b"email=a", "headers": {"Content-Type": "text/plain"}},
        ),
        ("PUT", f"/users/{tenant.admin_id}", tenant.admin_token, {"data": b'{"active": 1e400}', **as_json}),
        ("PUT", f"/users/{tenant.admin_id}", user_token, {"json": {"role": ["admin"]}}),
        ("GET", "/status", None, {"headers": {"Authorization": "Bearer " + "é" * 10}}),
        ("GET", "/status", None, {"headers": {"Authorization": "Bearer " + str(uuid.uuid4()).upper()}}),
        ("GET", "/status?token=%00&x=%ff", tenant.admin_token, {}),
        ("POST", "/register", api.master_token, {"json": {"tenant_name": "x" * 10_000, "email": "a@b.co"}}),
        ("POST", "/register", api.master_token, {"json": {"tenant_name": {"a": 1}, "password": 123456}}),
        (
            "POST",
            "/register",
            api.master_token,
            {"data": b'{"tenant_name": "x\\ud800", "email": "a@b.co"}', **as_json},
        ),
        (
            "POST",
            "/users",
            tenant.admin_token,
            {"data": b'{"email": "\\ud800", "role": "\\udfff"}', **as_json},
        ),
    ]
    for method, path, token, extra in odd:
        # When it sends an unusual request
        response = api.request(method, path, token, **extra)
        # Then the answer is a client error or success with a JSON body, never a server failure
        assert response.status_code < 500, (method, path, response.status_code, response.text[:300])
        assert response.headers["content-type"].startswith("application/json"), (path, response.text[:300])
        assert "Traceback" not in response.text
        assert 'File "' not in response.text
        assert response.headers.get("X-Request-Id")


# --- versioning -------------------------------------------------------------------------


def test_openapi_document_is_served_with_the_gateway_version(api):
    # Given the running gateway
    # When its OpenAPI document is fetched
    response = api.request("GET", "/openapi.json")
    # Then it is served, describes the routes without any version in their paths,
    # and names the same version as the X-Gateway-Version header
    assert response.status_code == 200
    document = response.json()
    assert document["info"]["version"] == response.headers["X-Gateway-Version"]
    paths = set(document["paths"])
    assert {"/register", "/tenants", "/global/tenants/{tenant_id}", "/users", "/users/{user_id}"} <= paths
    assert "/status" in paths
    assert not any(re.match(r"^/v\d+/", path) for path in paths)
