"""The rules of a webhook configuration that need no database: the request body, the event
names, the URL check of a deployment, and the public shapes."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from gateway.config import get_settings
from gateway.errors import ApiError
from gateway.models import DeliveryModel, WebhookModel
from gateway.webhooks import service
from gateway.webhooks.addresses import UnsafeUrl
from gateway.webhooks.catalog import CATALOG, SUBSCRIBABLE
from gateway.webhooks.schemas import MAX_HEADERS, SECRET_SCHEMA, WebhookRequest
from gateway.webhooks.views import attempt_view, ordered_events, webhook_view


def request(**fields: Any) -> WebhookRequest:
    return WebhookRequest(webhook_url="https://hooks.example.com/", enabled_events=["message"], **fields)


@pytest.fixture
def deployment(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``deployment(local_mode=..., allow_http=...)``: the settings of such a deployment."""

    def configure(*, local_mode: bool, allow_http: bool) -> None:
        monkeypatch.setenv("GATEWAY_LOCAL_MODE", str(local_mode).lower())
        monkeypatch.setenv("ALLOW_HTTP_WEBHOOKS", str(allow_http).lower())
        get_settings.cache_clear()

    yield configure
    monkeypatch.undo()
    get_settings.cache_clear()


# --- the request body ---------------------------------------------------------------------


def test_defaults_and_which_fields_were_given():
    # Given a body with only the required fields
    body = request()
    # Then the defaults apply, and the body knows what it did not give (an update keeps those)
    assert (body.enabled, body.retry_attempts, body.timeout, body.secret, body.headers) == (
        True,
        3,
        10,
        None,
        {},
    )
    assert body.model_fields_set == {"webhook_url", "enabled_events"}
    assert "secret" in request(secret=None).model_fields_set


def test_custom_headers_up_to_the_limit_are_kept_as_given():
    headers = {f"X-Custom-{index}": f"value {index}" for index in range(MAX_HEADERS)}
    assert request(headers=headers).headers == headers


@pytest.mark.parametrize(
    "headers",
    [
        {f"X-{index}": "v" for index in range(MAX_HEADERS + 1)},
        {"": "v"},
        {"X Space": "v"},
        {"X:Colon": "v"},
        {"Ümlaut": "v"},
        {"X-Webhook-Id": "forged"},
        {"Webhook-Signature": "v1,forged"},
        {"webhook-timestamp": "0"},
        {"WEBHOOK-ID": "forged"},
        {"x-webhook-anything": "v"},
        {"CONTENT-TYPE": "text/plain"},
        {"Content-Length": "1"},
        {"Host": "internal"},
        {"Transfer-Encoding": "chunked"},
        {"Connection": "close"},
        {"X-Dup": "1", "x-dup": "2"},
        {"X-Crlf": "a\r\nInjected: 1"},
        {"X-Nul": "a\x00b"},
        {"X-Unicode": "café"},
        {"X-Long": "v" * 2049},
    ],
)
def test_headers_that_would_break_or_forge_a_delivery_are_refused(headers):
    with pytest.raises(ValidationError) as raised:
        request(headers=headers)
    assert raised.value.errors()[0]["loc"] == ("headers",)


@pytest.mark.parametrize(
    "fields",
    [
        {"retry_attempts": 11},
        {"retry_attempts": True},
        {"timeout": 0},
        {"timeout": "10"},
        {"enabled": 1},
        {"secret": ""},
        {"secret": "s" * 257},
    ],
)
def test_out_of_range_or_loosely_typed_values_are_refused(fields):
    with pytest.raises(ValidationError):
        request(**fields)


def test_bounds_are_accepted():
    low = request(retry_attempts=0, timeout=1, secret="s" * 16)
    high = request(retry_attempts=10, timeout=30, secret="s" * 256)
    assert (low.retry_attempts, low.timeout, high.retry_attempts, high.timeout) == (0, 1, 10, 30)


def whsec(size: int) -> str:
    return "whsec_" + base64.b64encode(bytes(range(size))).decode()


def schema_accepts(secret: str) -> bool:
    """Whether the OpenAPI document's schema of ``secret`` allows it (ECMA-262's ``$`` is
    Python's ``\\Z``: it does not match before a final line break)."""
    pattern = SECRET_SCHEMA["pattern"].replace("$", r"\Z")
    return SECRET_SCHEMA["minLength"] <= len(secret) <= SECRET_SCHEMA["maxLength"] and bool(
        re.search(pattern, secret)
    )


@pytest.mark.parametrize(
    "secret",
    [
        "s",
        "fifteen-chars-x",
        whsec(23),
        whsec(31).rstrip("="),  # 31 bytes, but its base64 unpadded
        "whsec_" + "A" * 31 + "!",
        "whsec_" + base64.b64encode(bytes(30)).decode() + "\n",
    ],
    ids=["one-char", "15-chars", "whsec-23-bytes", "whsec-unpadded", "whsec-not-base64", "whsec-newline"],
)
def test_a_weak_or_malformed_secret_is_refused(secret):
    # Then a secret shorter than 16 characters, or a whsec_ key that is not the padded base64
    # of at least 24 bytes, is refused on the secret field (and the request's schema says so)
    with pytest.raises(ValidationError) as raised:
        request(secret=secret)
    assert raised.value.errors()[0]["loc"] == ("secret",)
    assert not schema_accepts(secret)


@pytest.mark.parametrize("secret", ["s" * 16, whsec(24), whsec(25), whsec(64), "whsec-is-not-the-prefix"])
def test_the_weakest_secrets_allowed_are_accepted(secret):
    assert request(secret=secret).secret == secret
    assert schema_accepts(secret)


# --- event names --------------------------------------------------------------------------


def test_unknown_event_names_error_lists_every_valid_name():
    # When the names include unknown ones
    with pytest.raises(ApiError) as raised:
        service.known_events(["message.received", "nope", "message.ack", "Message.Received"])
    # Then the error is VALIDATION_ERROR with one item per unknown name and every valid name
    body = raised.value.body()
    assert (raised.value.status, body["error_code"]) == (400, "VALIDATION_ERROR")
    assert [(item["field"], item["value"]) for item in body["validation"]] == [
        ("enabled_events.1", "nope"),
        ("enabled_events.3", "Message.Received"),
    ]
    assert body["available_events"] == list(SUBSCRIBABLE)


def test_known_names_are_kept_once_each():
    assert service.known_events(["message", "message", "device.connected"]) == {"message", "device.connected"}


# --- the URL check of a deployment --------------------------------------------------------


@pytest.mark.parametrize(
    ("local_mode", "allow_http", "url", "accepted"),
    [
        (True, False, "http://127.0.0.1:8080/hook", True),  # local mode: loopback receivers over HTTP
        (False, True, "http://93.184.215.14/hook", True),
        (False, False, "http://93.184.215.14/hook", False),
        (False, False, "https://93.184.215.14/hook", True),
        (False, False, "https://127.0.0.1/hook", False),
        (False, False, "https://[::ffff:192.168.0.1]/hook", False),
        (True, True, "ftp://example.com/file", False),
        (True, True, "https://exa mple.com/", False),
        (True, True, "https://host.example.com:99999/", False),
        (True, True, "https://[::1/", False),
    ],
)
def test_deliverable_url_follows_the_deployment(deployment, local_mode, allow_http, url, accepted):
    deployment(local_mode=local_mode, allow_http=allow_http)
    if accepted:
        service.deliverable_url(url)
    else:
        with pytest.raises(UnsafeUrl):
            service.deliverable_url(url)


# --- public shapes ------------------------------------------------------------------------


def test_webhook_view_never_carries_the_secret_nor_header_values():
    config = WebhookModel(
        "tenant",
        "device",
        webhook_id="id-1",
        webhook_url="https://hooks.example.com/",
        enabled_events={"message.ack", "device.connected", "message.received"},
        enabled=True,
        retry_attempts=2,
        timeout=5,
        secret="top-secret",
        headers={"X-A": "receiver-credential"},
        created_at="2026-01-01T00:00:00.000Z",
        updated_at="2026-01-01T00:00:01.000Z",
    )
    view = webhook_view(config)
    assert "top-secret" not in str(view)
    assert "receiver-credential" not in str(view)
    assert view["has_secret"] is True
    assert view["enabled_events"] == ["message.received", "device.connected", "message.ack"]
    assert view["headers"] == {"X-A": "***"}


def test_events_are_ordered_as_the_catalog_lists_them():
    assert ordered_events(set(SUBSCRIBABLE)) == list(SUBSCRIBABLE)
    assert ordered_events({CATALOG[-1], CATALOG[0]}) == [CATALOG[0], CATALOG[-1]]


def test_attempt_view_shows_numbers_as_integers():
    item = DeliveryModel(
        "device",
        "attempt#0000000000001#abc#01",
        tenant_id="tenant",
        event_id="abc",
        event="message.received",
        status="failed",
        attempt=1,
        status_code=None,
        duration_ms=12.0,
        error="connection refused",
        webhook_url="https://hooks.example.com/",
        attempted_at="2026-01-01T00:00:00.000Z",
        expires_at=1,
    )
    assert attempt_view(item) == {
        "id": "abc",
        "event": "message.received",
        "attempt": 1,
        "status": "failed",
        "status_code": None,
        "duration_ms": 12,
        "error": "connection refused",
        "webhook_url": "https://hooks.example.com/",
        "attempted_at": "2026-01-01T00:00:00.000Z",
    }
