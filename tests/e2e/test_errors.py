"""Errors over HTTP: the standard envelope for unknown routes and methods, the headers every
response carries, and no leaked failures. Refused bodies and the size limit: ``test_errors_bodies.py``."""

from __future__ import annotations

import json
import logging
import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from errors_steps import valid_user_body

pytestmark = pytest.mark.e2e

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


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
