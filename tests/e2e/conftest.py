"""Fixtures of the end-to-end tests: checks of the documented bodies and headers, a counter of
the DynamoDB calls the gateway makes, and temporary settings.

The local stack runs in this process (uvicorn and moto on loopback threads), so patching
botocore or the cached settings here is seen by the server while a test runs.
"""

from __future__ import annotations

import os
import re
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import botocore.client
import pytest
import requests

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


class DynamoCalls:
    """Every DynamoDB call the process makes while installed: (operation, table name)."""

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
    """Counts the calls botocore makes; the gateway's PynamoDB models go through it."""
    recorder = DynamoCalls()
    original = botocore.client.BaseClient._make_api_call

    def counting(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        if self.meta.service_model.service_name == "dynamodb":
            recorder.calls.append((operation_name, api_params.get("TableName")))
        return original(self, operation_name, api_params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", counting)
    return recorder


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
    """Every envelope the session hosts publish, read off the events queue as they arrive.

    One reader for the whole run, so a test never consumes another test's events; each test
    picks its own by ``device_id``.
    """

    def __init__(self, queue_url: str) -> None:
        import threading

        import boto3

        self._sqs = boto3.client("sqs")
        self._queue_url = queue_url
        self._seen: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="events-tap", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import json

        while not self._stopped.is_set():
            response = self._sqs.receive_message(
                QueueUrl=self._queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1
            )
            messages = response.get("Messages", [])
            with self._changed:
                self._seen.extend(json.loads(message["Body"]) for message in messages)
                self._changed.notify_all()
            for message in messages:
                self._sqs.delete_message(QueueUrl=self._queue_url, ReceiptHandle=message["ReceiptHandle"])

    def of(self, device_id: str, name: str | None = None) -> list[dict[str, Any]]:
        with self._changed:
            return [
                event
                for event in self._seen
                if event["device_id"] == device_id and (name is None or event["event"] == name)
            ]

    def wait_for(
        self, device_id: str, name: str, count: int = 1, timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        """The first ``count`` envelopes named ``name`` of the device, waiting for them to arrive."""
        import time

        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [e for e in self._seen if e["device_id"] == device_id and e["event"] == name]
                if len(found) >= count:
                    return found[:count]
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"no {name} event for device {device_id} within {timeout} s: {found}"
                self._changed.wait(remaining)

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)


@pytest.fixture(scope="session")
def events(stack: Any) -> Iterator[EventsTap]:
    """The envelopes on the events queue (until a delivery worker consumes them, issue 4)."""
    from gateway.config import get_settings

    tap = EventsTap(get_settings().events_queue_url)
    yield tap
    tap.stop()
