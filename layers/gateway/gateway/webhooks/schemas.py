"""Request bodies of the webhook routes. Unknown fields are ignored, as on every route.

What needs the catalog or the network (event names, the URL's addresses) is checked by
``service``, so that its errors can carry ``available_events`` and say which address failed.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import (
    Field,
    HttpUrl,
    StrictBool,
    StringConstraints,
    WithJsonSchema,
    field_validator,
)
from pydantic.config import JsonDict

from gateway.web.deferred import DeferredModel
from gateway.web.fields import DOMAIN_LABEL, TOP_LABEL, JsonInteger, any_case
from gateway.webhooks.catalog import SUBSCRIBABLE
from gateway.webhooks.delivery.constants import RESERVED_HEADERS
from gateway.webhooks.signing import WHSEC_PREFIX, whsec_key

MAX_HEADERS = 20
DEFAULT_RETRY_ATTEMPTS = 3
DEFAULT_TIMEOUT_SECONDS = 10
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$")  # an HTTP field name (RFC 9110 token)
_VALUE = re.compile(r"^[\x20-\x7e\t]{0,2048}$")  # visible ASCII, space and tab: no CR/LF injection
_RESERVED_PREFIX = "x-webhook-"  # the gateway's own headers, today's and future ones

_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_PORT = r"(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})"
_HOST = rf"(?:(?:{DOMAIN_LABEL}\.)*{TOP_LABEL}|(?:{_OCTET}\.){{3}}{_OCTET})"
URL_SCHEMA = {
    "type": "string",
    "maxLength": 2048,
    "pattern": rf"^{any_case('http')}[Ss]?://{_HOST}(?::{_PORT})?(?:[/?#][^\s]*)?$",
    "not": {"pattern": "^[^:]+://[^/?#:]{254,}"},
    "description": "An http(s) URL with a host name (at most 253 characters) or an IPv4 address; "
    "a bracketed IPv6 address is accepted too. HTTPS unless the deployment allows HTTP; outside "
    "local mode the host must resolve to public addresses only (refused with `VALIDATION_ERROR`).",
}
"""The URLs the gateway may deliver to (``service.deliverable_url``), as far as a pattern can say."""

WebhookUrl = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=2048),
    WithJsonSchema(URL_SCHEMA),
]
OptionalWebhookUrl = Annotated[HttpUrl, WithJsonSchema(URL_SCHEMA)] | None
"""The ``webhook_url`` of POST /register and POST /users: a user's pending URL."""
EventName = Annotated[
    str, StringConstraints(min_length=1, max_length=100), WithJsonSchema({"enum": list(SUBSCRIBABLE)})
]
_HEADER_NAME_SCHEMA: JsonDict = {
    "type": "string",
    "pattern": "^"
    + "".join(f"(?!{any_case(name)}$)" for name in sorted(RESERVED_HEADERS))
    + f"(?!{any_case(_RESERVED_PREFIX)})"
    + _TOKEN.pattern[1:],
}
"""An HTTP field name that is not one the gateway sets."""


MIN_SECRET_CHARS = 16
MIN_WHSEC_KEY_BYTES = 24
"""The weakest secret accepted (docs/webhooks.md): 16 characters, or for a Standard Webhooks
key (``whsec_<base64>``) 24 bytes, the least its specification allows. Secrets stored before
these limits keep signing."""
_BASE64_QUAD = "[A-Za-z0-9+/]{4}"
SECRET_SCHEMA = {
    "type": "string",
    "minLength": MIN_SECRET_CHARS,
    "maxLength": 256,
    "pattern": f"^(?!{WHSEC_PREFIX})|^{WHSEC_PREFIX}(?:{_BASE64_QUAD}){{{MIN_WHSEC_KEY_BYTES // 3},}}"
    "(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
}
"""Any secret of 16 characters or more; one starting ``whsec_`` is padded base64 of 24 bytes or
more (eight whole groups of four characters: seven and a padded tail are 23 bytes at most)."""

Secret = Annotated[
    str, StringConstraints(min_length=MIN_SECRET_CHARS, max_length=256), WithJsonSchema(SECRET_SCHEMA)
]


class WebhookRequest(DeferredModel):
    """POST /webhook. Fields left out of an update keep their stored values."""

    webhook_url: WebhookUrl = Field(
        description="HTTPS URL that receives the events (plain HTTP only where the deployment allows it)",
        examples=["https://hooks.example.com/gateway"],
    )
    enabled_events: list[EventName] = Field(
        min_length=1,
        max_length=200,
        description="Names from GET /webhook/events; `message` and `message.ack` are aliases",
        examples=[["message.received", "message.ack", "device.connected"]],
    )
    enabled: StrictBool = Field(
        default=True, description="false keeps the configuration but delivers nothing"
    )
    retry_attempts: JsonInteger = Field(
        default=DEFAULT_RETRY_ATTEMPTS, ge=0, le=10, description="retries after a failed attempt"
    )
    timeout: JsonInteger = Field(
        default=DEFAULT_TIMEOUT_SECONDS, ge=1, le=30, description="seconds each attempt may take"
    )
    secret: Secret | None = Field(
        default=None,
        description=f"Signing key, at least {MIN_SECRET_CHARS} characters; `whsec_` followed by the "
        f"base64 of at least {MIN_WHSEC_KEY_BYTES} bytes is a Standard Webhooks key. Never shown "
        "again. Left out of an update: kept, unless `webhook_url` changes; `null`: removed",
    )
    headers: dict[str, str] = Field(
        default_factory=dict,
        description=f"Up to {MAX_HEADERS} custom headers sent with every attempt; names are "
        "case-insensitive, so one name may not appear twice in different cases",
        examples=[{"Authorization": "Bearer receiver-token"}],
        json_schema_extra={
            "maxProperties": MAX_HEADERS,
            "propertyNames": _HEADER_NAME_SCHEMA,
            "additionalProperties": {"type": "string", "pattern": _VALUE.pattern},
        },
    )

    @field_validator("secret")
    @classmethod
    def _strong_whsec_key(cls, secret: str | None) -> str | None:
        if secret is not None and secret.startswith(WHSEC_PREFIX):
            key = whsec_key(secret)
            if key is None or len(key) < MIN_WHSEC_KEY_BYTES:
                raise ValueError(
                    f"a secret starting {WHSEC_PREFIX} is a Standard Webhooks key: {WHSEC_PREFIX} and "
                    f"the padded base64 of at least {MIN_WHSEC_KEY_BYTES} bytes"
                )
        return secret

    @field_validator("headers")
    @classmethod
    def _sendable_headers(cls, headers: dict[str, str]) -> dict[str, str]:
        if len(headers) > MAX_HEADERS:
            raise ValueError(f"at most {MAX_HEADERS} headers")
        seen: set[str] = set()
        for name, value in headers.items():
            lowered = name.lower()
            if not _TOKEN.fullmatch(name):
                raise ValueError(f"{name!r} is not a valid header name")
            if lowered in RESERVED_HEADERS or lowered.startswith(_RESERVED_PREFIX):
                raise ValueError(f"{name!r} is set by the gateway and cannot be overridden")
            if lowered in seen:
                raise ValueError(f"{name!r} is given twice")
            if not _VALUE.fullmatch(value):
                raise ValueError(f"the value of {name!r} must be printable ASCII, at most 2048 characters")
            seen.add(lowered)
        return headers


class PendingWebhookRequest(DeferredModel):
    """POST /user/webhook."""

    webhook_url: WebhookUrl = Field(
        description="Applied, with every catalog event, to each new device of the caller when it connects",
        examples=["https://hooks.example.com/gateway"],
    )
