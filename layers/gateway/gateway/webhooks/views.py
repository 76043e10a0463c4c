"""Public shapes of webhook configurations and delivery attempts. Secrets are write-only: a
configuration says only whether it has a signing secret, and shows its custom headers' names
with every value masked (a value is often a credential of the receiver, e.g. a bearer token)."""

from __future__ import annotations

from typing import Any

from pynamodb.attributes import MapAttribute

from gateway.models import DeliveryModel, WebhookModel
from gateway.webhooks.catalog import SUBSCRIBABLE

_ORDER = {name: index for index, name in enumerate(SUBSCRIBABLE)}
HEADER_VALUE_MASK = "***"
"""What every custom header value is shown as; sent back in an update, it keeps the stored value."""


def ordered_events(names: set[str] | frozenset[str]) -> list[str]:
    """Event names in catalog order (aliases last), so responses do not depend on set order."""
    return sorted(names, key=lambda name: (_ORDER.get(name, len(_ORDER)), name))


def plain_headers(headers: MapAttribute[str, str] | dict[str, str] | None) -> dict[str, str]:
    """The custom headers as a dict: a configuration read back holds them as a MapAttribute."""
    if isinstance(headers, MapAttribute):
        stored: dict[str, str] = headers.as_dict()
        return stored
    return dict(headers or {})


def webhook_view(config: WebhookModel) -> dict[str, Any]:
    return {
        "id": config.webhook_id,
        "webhook_url": config.webhook_url,
        "enabled_events": ordered_events(set(config.enabled_events or ())),
        "enabled": bool(config.enabled),
        "retry_attempts": int(config.retry_attempts),
        "timeout": int(config.timeout),
        "headers": dict.fromkeys(plain_headers(config.headers), HEADER_VALUE_MASK),
        "has_secret": bool(config.secret),
        "created_at": config.created_at,
        "updated_at": config.updated_at,
    }


def attempt_view(item: DeliveryModel) -> dict[str, Any]:
    """One delivery attempt of the log; ``id`` is the event's id (the envelope ``id``)."""
    return {
        "id": item.event_id,
        "event": item.event,
        "attempt": _integer(item.attempt),
        "status": item.status,
        "status_code": _integer(item.status_code),
        "duration_ms": _integer(item.duration_ms),
        "error": item.error,
        "webhook_url": item.webhook_url,
        "attempted_at": item.attempted_at,
    }


def _integer(value: float | None) -> int | None:
    return None if value is None else int(value)
