"""One event, one attempt: choose the configuration, sign, POST, and decide what follows.

Retries use SQS, not sleeps: after the n-th failed attempt the event is ``pending``, and the
batch (``invocation``) sets the message's visibility timeout to :func:`retry_delay` (n seconds)
and reports the record as failed, so SQS hands it back n seconds later with a receive count of
n + 1, the next attempt's number. After ``retry_attempts`` retries the event is ``failed``:
logged, then reported as processed; it leaves the queue but stays in the log for redelivery.

The configuration is read on a thread (DynamoDB is blocking), once per device and batch; the
attempt itself is a task of the transport's event loop, under its own deadline, so it holds no
thread while it waits.
"""

from __future__ import annotations

import asyncio
import time

from gateway.config import get_settings
from gateway.observability import logger
from gateway.webhooks.delivery.batch import Batch, InPool, Target
from gateway.webhooks.delivery.constants import (
    HEADER_EVENT,
    HEADER_ID,
    HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
    STANDARD_ID,
    STANDARD_SIGNATURE,
    STANDARD_TIMESTAMP,
    EventStatus,
)
from gateway.webhooks.delivery.recorder import Attempted
from gateway.webhooks.delivery.transport import AttemptResult, transport_for
from gateway.webhooks.events_queue import IncomingEvent
from gateway.webhooks.signing import body_bytes, signed_envelope

UNSUBSCRIBED_METRIC = "WebhookEventsUnsubscribed"
STATUS_METRICS = {
    EventStatus.DELIVERED: "WebhookEventsDelivered",
    EventStatus.PENDING: "WebhookAttemptsRetried",
    EventStatus.FAILED: "WebhookEventsExhausted",
}


async def subscribed(incoming: IncomingEvent, batch: Batch, in_pool: InPool) -> Target | None:
    """The configuration that wants the event, or ``None`` (dropped, not logged, counted);
    a read of it runs on ``in_pool``."""
    target = await batch.configurations.subscribed(incoming, in_pool)
    if target is None:
        batch.outcomes.count(UNSUBSCRIBED_METRIC)
    return target


async def deliver(incoming: IncomingEvent, target: Target, start_by: float) -> Attempted:
    """Attempt one event, started by ``start_by`` (``time.monotonic()``) or not at all
    (:class:`~gateway.webhooks.delivery.lanes.NotStarted`); what is to be logged. Logging and
    scheduling the retry are the batch's (``invocation``)."""
    result = await attempt(incoming, target, start_by)
    if result.ok:
        status = EventStatus.DELIVERED
    elif incoming.attempt <= target.retry_attempts:
        status = EventStatus.PENDING
    else:
        status = EventStatus.FAILED
    return Attempted(incoming, target.webhook_url, result, status, time.time())


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


async def attempt(incoming: IncomingEvent, target: Target, start_by: float) -> AttemptResult:
    """Sign the envelope with the current secret and POST it, once, in the lane of the event's
    configuration."""
    if target.refusal is not None:
        return AttemptResult(status_code=None, duration_ms=0, error=target.refusal)
    body = body_bytes(signed_envelope(incoming.envelope.fields(), target.signer))
    posted = transport_for(get_settings().local_mode).post(
        target.webhook_url,
        body,
        request_headers(incoming, target, body),
        target.timeout,
        lane=(incoming.tenant_id, incoming.device_id),
        start_by=start_by,
    )
    return await asyncio.wrap_future(posted)


def retry_delay(failed_attempt: int) -> int:
    """Seconds between the n-th failed attempt and the next one: n (1 s, 2 s, 3 s, ...)."""
    return failed_attempt


def request_headers(incoming: IncomingEvent, target: Target, body: bytes) -> dict[str, str]:
    """The configuration's custom headers, then the gateway's own (which they cannot replace).
    A signed attempt carries the Standard Webhooks headers too, stamped with its own time (not
    the event's), so a receiver's freshness check passes a retry and refuses a replay."""
    headers = {
        **target.headers,
        HEADER_ID: incoming.event_id,
        HEADER_EVENT: incoming.event,
        HEADER_TIMESTAMP: str(incoming.envelope.timestamp),
    }
    if target.signer is not None:
        headers[HEADER_SIGNATURE] = target.signer.sign(body)
        now = int(time.time())
        headers[STANDARD_ID] = incoming.event_id
        headers[STANDARD_TIMESTAMP] = str(now)
        headers[STANDARD_SIGNATURE] = target.signer.standard_signature(incoming.event_id, now, body)
    return headers
