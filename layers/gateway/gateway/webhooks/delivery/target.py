"""A webhook configuration as a batch delivers to it: what every attempt needs, worked out once
per batch (reading a PynamoDB model's attributes, filtering the custom headers and setting up
the HMAC key cost more than the rest of an attempt's own work)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from pynamodb.attributes import MapAttribute

from gateway.config import get_settings
from gateway.models.webhooks import WebhookModel
from gateway.webhooks.delivery.constants import RESERVED_HEADERS, USER_AGENT
from gateway.webhooks.signing import Signer

PLAIN_HTTP_REFUSED = "refused: plain HTTP is not allowed"


@dataclass(frozen=True)
class Target:
    """Where and how a configuration's events are sent."""

    webhook_url: str
    timeout: float  # seconds, for the whole attempt
    retry_attempts: int
    headers: Mapping[str, str]  # the custom headers allowed, then User-Agent and Content-Type
    signer: Signer | None  # None: no secret, nothing signed
    refusal: str | None  # why no attempt is made at all, or None
    slow_until: float = 0.0  # epoch seconds until which it is marked slow (slow_lane.py)


def target_of(config: WebhookModel) -> Target:
    """The configuration's target as the deployment's settings allow it now."""
    settings = get_settings()
    url = str(config.webhook_url)
    http_allowed = settings.allow_http_webhooks or settings.local_mode
    plain_refused = urlsplit(url).scheme == "http" and not http_allowed
    return Target(
        webhook_url=url,
        timeout=float(config.timeout),
        retry_attempts=int(config.retry_attempts),
        headers=_fixed_headers(config.headers),
        signer=Signer(config.secret) if config.secret else None,
        refusal=PLAIN_HTTP_REFUSED if plain_refused else None,  # configured while it was allowed
        slow_until=float(config.slow_until or 0),
    )


def _fixed_headers(custom: MapAttribute[str, str] | Mapping[str, str] | None) -> dict[str, str]:
    """The configuration's custom headers, less those the gateway sets itself (which they
    cannot replace), then the gateway's headers that are the same for every event."""
    given = custom.as_dict() if isinstance(custom, MapAttribute) else (custom or {})
    headers = {name: str(value) for name, value in given.items() if name.lower() not in RESERVED_HEADERS}
    if not any(name.lower() == "user-agent" for name in headers):
        headers["User-Agent"] = USER_AGENT
    headers["Content-Type"] = "application/json"
    return headers
