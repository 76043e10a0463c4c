"""Fixtures of the end-to-end tests: checks of the documented bodies and headers, a counter of
the DynamoDB calls the gateway makes, temporary settings, and a webhook receiver on loopback
with the tap of delivered events.

The local stack runs in this process (uvicorn and moto on loopback threads), so patching
botocore or the cached settings here is seen by the server while a test runs.
"""

from __future__ import annotations

import os
import re
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import botocore.client
import pytest
import requests
from device_flows import subscribe
from webhook_receiver import Receiver

RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)$")
ERROR_CODE = re.compile(r"^[A-Z][A-Z0-9_]*$")


def _is_rfc3339_utc(value: object) -> bool:
    if not isinstance(value, str) or not RFC3339_UTC.match(value):
        return False
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed.utcoffset() == UTC.utcoffset(None)


def _check_envelope(response: requests.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """The standard error envelope; returns the body for further checks."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["success"] is False, body
    assert isinstance(body["error"], str), body
    assert body["error"], body
    assert ERROR_CODE.match(body["error_code"]), body
    if code is not None:
        assert body["error_code"] == code, body
    assert _is_rfc3339_utc(body["timestamp"]), body
    assert set(body) <= {"success", "error", "error_code", "timestamp", "validation"}, body
    assert "Traceback" not in response.text
    return body


@pytest.fixture
def envelope() -> Callable[..., dict[str, Any]]:
    """``envelope(response, status, code=None)``: assert the standard error envelope."""
    return _check_envelope


@pytest.fixture
def is_rfc3339_utc() -> Callable[[object], bool]:
    return _is_rfc3339_utc


def _is_uuid4(value: object) -> bool:
    if not isinstance(value, str) or len(value) != 36:
        return False
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        return False
    return parsed.version == 4 and str(parsed) == value.lower()


@pytest.fixture
def is_uuid4() -> Callable[[object], bool]:
    return _is_uuid4


API_THREADS = ("api", "AnyIO worker thread")
"""Where the local API server runs requests: its event loop's thread (named by the local
stack) and the worker threads that run the synchronous routes and dependencies."""


class DynamoCalls:
    """Every DynamoDB call the API server makes while installed: (operation, table name).

    Calls of the session hosts and the delivery worker, which share the process and run on
    their own threads (lease renewals, for instance), are not counted: a test counts what
    its requests cost, however busy the rest of the stack is.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None]] = []

    def reset(self) -> None:
        self.calls.clear()

    def count(self, operation: str | None = None, table: str | None = None) -> int:
        return sum(
            1
            for op, name in self.calls
            if (operation is None or op == operation) and (table is None or name == table)
        )

    def by_operation(self) -> Counter[tuple[str, str | None]]:
        return Counter(self.calls)


@pytest.fixture
def dynamodb_calls(monkeypatch: pytest.MonkeyPatch) -> DynamoCalls:
    """Counts the calls botocore makes on the API server's threads; the gateway's PynamoDB
    models go through it."""
    recorder = DynamoCalls()
    original = botocore.client.BaseClient._make_api_call

    def counting(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        if (
            self.meta.service_model.service_name == "dynamodb"
            and threading.current_thread().name in API_THREADS
        ):
            recorder.calls.append((operation_name, api_params.get("TableName")))
        return original(self, operation_name, api_params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", counting)
    return recorder


@pytest.fixture
def one_host_after(stack: Any) -> Iterator[None]:
    """Whatever a test does to the session hosts, the next test finds exactly one running."""
    yield
    while len(stack.hosts) > 1:
        stack.stop_host(stack.hosts[-1])
    if not stack.hosts:
        stack.start_host()


@pytest.fixture
def settings_override(stack: object) -> Iterator[Callable[..., None]]:
    """``settings_override(NAME="value", ...)``: run the rest of the test with changed settings.

    The settings are cached; the cache is cleared after the environment changes and again
    after it is restored, so no other test sees the changed values.
    """
    from gateway.config import get_settings

    saved: dict[str, str | None] = {}

    def override(**variables: str) -> None:
        for name, value in variables.items():
            saved.setdefault(name, os.environ.get(name))
            os.environ[name] = value
        get_settings.cache_clear()

    yield override
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    get_settings.cache_clear()


def _keys(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


@pytest.fixture
def assert_no_secrets() -> Callable[..., None]:
    """``assert_no_secrets(response, tokens=(), passwords=())``: no token, password or hash leaks."""

    def check(
        response: requests.Response, tokens: tuple[str, ...] = (), passwords: tuple[str, ...] = ()
    ) -> None:
        text = response.text
        keys = {key.lower() for key in _keys(response.json())}
        assert "token" not in keys, text
        assert not any("password" in key or "hash" in key for key in keys), text
        assert "scrypt" not in text
        for token in tokens:
            assert token.lower() not in text.lower(), text
        for password in passwords:
            assert password not in text, text

    return check


class EventsTap:
    """Every envelope delivered to the session's receiver on its tap path, through the real
    delivery path (events queue, delivery worker, webhook POST). A test subscribes its device
    with :meth:`subscribe` (every event, no secret) and picks its envelopes by ``device_id``.
    """

    def __init__(self, receiver: Receiver) -> None:
        self._receiver = receiver
        self.path = receiver.path()

    def subscribe(self, api: Any, token: str, device_id: str) -> None:
        subscribe(api, token, device_id, self._receiver.url(self.path))

    def _delivered(self, device_id: str, name: str | None) -> list[dict[str, Any]]:
        unique: dict[str, dict[str, Any]] = {}  # a retried delivery may arrive twice: once per id
        for request in self._receiver.requests(self.path, name):
            envelope = request.envelope
            if envelope["device_id"] == device_id:
                unique.setdefault(envelope["id"], envelope)
        return list(unique.values())

    def of(self, device_id: str, name: str | None = None) -> list[dict[str, Any]]:
        return self._delivered(device_id, name)

    def wait_for(
        self, device_id: str, name: str, count: int = 1, timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        """The first ``count`` envelopes named ``name`` of the device, waiting for them to arrive."""
        self._receiver.wait_for(
            self.path,
            lambda _requests: len(self._delivered(device_id, name)) >= count,
            timeout,
            expected=f"{count} {name} event(s) of device {device_id}",
        )
        return self._delivered(device_id, name)[:count]


@pytest.fixture(scope="session")
def receiver(stack: Any) -> Iterator[Receiver]:
    """A real HTTP server on loopback that records webhook deliveries, one path per test."""
    server = Receiver().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def events(receiver: Receiver) -> EventsTap:
    """The envelopes delivered to the devices a test subscribed with ``events.subscribe``."""
    return EventsTap(receiver)
