"""One event, one attempt: choose the configuration, sign, POST, and decide what follows.

Retries use SQS, not sleeps: after the n-th failed attempt the event is ``pending``, and the
batch (``invocation``) sets the message's visibility timeout to :func:`retry_delay` (n seconds)
and reports the record as failed, so SQS hands it back n seconds later with a receive count of
n + 1, the next attempt's number. After ``retry_attempts`` retries the event is ``failed``:
logged, then reported as processed; it leaves the queue but stays in the log for redelivery.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from urllib.parse import urlsplit

from pynamodb.attributes import MapAttribute

from gateway.config import get_settings
from gateway.models.webhooks import WebhookModel
from gateway.observability import logger
from gateway.webhooks.delivery.batch import Batch
from gateway.webhooks.delivery.constants import (
    HEADER_EVENT,
    HEADER_ID,
    HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
    RESERVED_HEADERS,
    USER_AGENT,
    EventStatus,
)
from gateway.webhooks.delivery.incoming import IncomingEvent
from gateway.webhooks.delivery.recorder import Attempted
from gateway.webhooks.delivery.transport import AttemptResult, transport_for
from gateway.webhooks.signing import body_bytes, body_signature, signed_envelope

UNSUBSCRIBED_METRIC = "WebhookEventsUnsubscribed"
STATUS_METRICS = {
    EventStatus.DELIVERED: "WebhookEventsDelivered",
    EventStatus.PENDING: "WebhookAttemptsRetried",
    EventStatus.FAILED: "WebhookEventsExhausted",
}


def deliver(incoming: IncomingEvent, batch: Batch) -> Attempted | None:
    """Attempt one event; what is to be logged, or ``None`` when no configuration wants it
    (dropped, not logged). Logging and scheduling the retry are the batch's (``invocation``)."""
    config = batch.configurations.subscribed(incoming)
    if config is None:
        batch.outcomes.count(UNSUBSCRIBED_METRIC)
        return None
    result = attempt(incoming, config)
    if result.ok:
        status = EventStatus.DELIVERED
    elif incoming.attempt <= int(config.retry_attempts):
        status = EventStatus.PENDING
    else:
        status = EventStatus.FAILED
    return Attempted(incoming, config.webhook_url, result, status, time.time())


def report(attempted: Attempted, batch: Batch) -> None:
    """Count and log an attempt once it is in the delivery log."""
    incoming, result, status = attempted.incoming, attempted.result, attempted.status
    batch.outcomes.count(STATUS_METRICS[status])
    log = logger.debug if result.ok else logger.warning
    log(
        "webhook attempt",
        extra={
            "tenant_id": incoming.tenant_id,
            "device_id": incoming.device_id,
            "event_id": incoming.event_id,
            "event": incoming.event,
            "attempt": incoming.attempt,
            "status": status.value,
            "status_code": result.status_code,
            "duration_ms": result.duration_ms,
            "error": result.error,
        },
    )


def attempt(incoming: IncomingEvent, config: WebhookModel) -> AttemptResult:
    """Sign the envelope with the current secret and POST it, once."""
    settings = get_settings()
    if urlsplit(config.webhook_url).scheme == "http" and not (
        settings.allow_http_webhooks or settings.local_mode
    ):  # configured while the deployment allowed it
        return AttemptResult(status_code=None, duration_ms=0, error="refused: plain HTTP is not allowed")
    body = body_bytes(signed_envelope(incoming.envelope, config.secret))
    return transport_for(settings.local_mode).post(
        config.webhook_url, body, request_headers(incoming, config, body), float(config.timeout)
    )


def retry_delay(failed_attempt: int) -> int:
    """Seconds between the n-th failed attempt and the next one: n (1 s, 2 s, 3 s, ...)."""
    return failed_attempt


def request_headers(incoming: IncomingEvent, config: WebhookModel, body: bytes) -> dict[str, str]:
    """The configuration's custom headers, then the gateway's own (which they cannot replace)."""
    custom = _as_dict(config.headers)
    headers = {name: str(value) for name, value in custom.items() if name.lower() not in RESERVED_HEADERS}
    if not any(name.lower() == "user-agent" for name in headers):
        headers["User-Agent"] = USER_AGENT
    headers.update(
        {
            "Content-Type": "application/json",
            HEADER_ID: incoming.event_id,
            HEADER_EVENT: incoming.event,
            HEADER_TIMESTAMP: str(incoming.envelope["timestamp"]),
        }
    )
    if config.secret:
        headers[HEADER_SIGNATURE] = body_signature(config.secret, body)
    return headers


def _as_dict(headers: MapAttribute[str, str] | Mapping[str, str] | None) -> Mapping[str, str]:
    if isinstance(headers, MapAttribute):
        return headers.as_dict()
    return headers or {}
