"""Writes the delivery log: one ``attempt#`` item per attempt, one ``event#`` item per event.

The event item keeps the unsigned envelope, so POST /webhook/deliveries/{id}/redeliver can send
the event again after its attempts are exhausted; GET /webhook/deliveries lists the attempt
items, whose keys sort by time (both read by ``gateway.webhooks.delivery_log``). Both expire
after :data:`RETENTION_SECONDS`.
"""

from __future__ import annotations

import json
import time

from gateway.models.webhooks import DeliveryModel
from gateway.timestamps import iso_utc
from gateway.webhooks.delivery.constants import RETENTION_SECONDS, AttemptStatus, EventStatus
from gateway.webhooks.delivery.incoming import IncomingEvent
from gateway.webhooks.delivery.transport import AttemptResult
from gateway.webhooks.store import ATTEMPT_PREFIX, EVENT_PREFIX

MAX_ATTEMPT_IN_KEY = 99


def event_key(event_id: str) -> str:
    return f"{EVENT_PREFIX}{event_id}"


def attempt_key(attempted_at_ms: int, event_id: str, attempt: int) -> str:
    return f"{ATTEMPT_PREFIX}{attempted_at_ms:013d}#{event_id}#{min(attempt, MAX_ATTEMPT_IN_KEY):02d}"


def record_attempt(
    incoming: IncomingEvent,
    webhook_url: str,
    result: AttemptResult,
    event_status: EventStatus,
    now: float | None = None,
) -> None:
    """Write the attempt and the event's new state in one batch (two puts)."""
    now = time.time() if now is None else now
    attempted_at = iso_utc(now)
    common = {
        "tenant_id": incoming.tenant_id,
        "event_id": incoming.event_id,
        "event": incoming.event,
        "attempt": incoming.attempt,
        "status_code": result.status_code,
        "duration_ms": result.duration_ms,
        "error": result.error,
        "webhook_url": webhook_url,
        "attempted_at": attempted_at,
        "expires_at": int(now) + RETENTION_SECONDS,
    }
    attempt = DeliveryModel(
        incoming.device_id,
        attempt_key(int(now * 1000), incoming.event_id, incoming.attempt),
        status=AttemptStatus.DELIVERED if result.ok else AttemptStatus.FAILED,
        **common,
    )
    event = DeliveryModel(
        incoming.device_id,
        event_key(incoming.event_id),
        status=event_status,
        envelope=json.dumps(incoming.envelope, separators=(",", ":"), ensure_ascii=False),
        **common,
    )
    with DeliveryModel.batch_write() as batch:
        batch.save(attempt)
        batch.save(event)
