"""The delivery log's items, made without building models, are the ones the model reads back."""

from __future__ import annotations

import json

import pytest

from gateway.models.webhooks import DeliveryModel
from gateway.webhooks.delivery.constants import RETENTION_SECONDS, EventStatus
from gateway.webhooks.delivery.recorder import Attempted, log_items
from gateway.webhooks.delivery.transport import AttemptResult
from gateway.webhooks.events_queue import EventEnvelope, IncomingEvent

ENVELOPE = EventEnvelope.model_validate(
    {"id": "e-1", "event": "message.received", "timestamp": 5, "device_id": "dev-1", "data": {"t": "grüße"}}
)
AT = 1767225600.25


@pytest.mark.parametrize(
    ("result", "status", "attempt_status"),
    [
        (AttemptResult(204, 12, None), EventStatus.DELIVERED, "delivered"),
        (AttemptResult(None, 10000, "timed out after 10 s"), EventStatus.PENDING, "failed"),
        (AttemptResult(500, 3, "receiver answered HTTP 500"), EventStatus.FAILED, "failed"),
    ],
)
def test_log_items_are_what_the_model_serializes(
    result: AttemptResult, status: EventStatus, attempt_status: str
) -> None:
    # Given an attempt of the third delivery of an event
    incoming = IncomingEvent(ENVELOPE, "t-1", 3, False, "receipt", "queue-url")
    attempted = Attempted(incoming, "https://hooks.example/in", result, status, AT)

    # When its log items are made
    attempt_item, event_item = log_items(attempted)

    # Then they are the items of the models the log is read with
    common = {
        "tenant_id": "t-1",
        "event_id": "e-1",
        "event": "message.received",
        "attempt": 3,
        "status_code": result.status_code,
        "duration_ms": result.duration_ms,
        "error": result.error,
        "webhook_url": "https://hooks.example/in",
        "attempted_at": "2026-01-01T00:00:00.250Z",
        "expires_at": int(AT) + RETENTION_SECONDS,
    }
    expected_attempt = DeliveryModel(
        "dev-1", "attempt#1767225600250#e-1#03", status=attempt_status, **common
    ).serialize()
    envelope = json.dumps(ENVELOPE.fields(), separators=(",", ":"), ensure_ascii=False)
    expected_event = DeliveryModel(
        "dev-1", "event#e-1", status=status.value, envelope=envelope, **common
    ).serialize()
    assert attempt_item == expected_attempt
    assert event_item == expected_event
