"""The numbers and names of webhook delivery, gathered in one place."""

from __future__ import annotations

from enum import StrEnum

RETENTION_SECONDS = 30 * 24 * 3600
"""How long the delivery log keeps an event and its attempts (DynamoDB TTL)."""

MAX_RETRY_DELAY_SECONDS = 10
"""The n-th failed attempt is retried n seconds later, and ``retry_attempts`` is at most 10."""

MAX_BATCH_SIZE = 10
"""The events queue's event source mapping hands the function at most this many records."""

DELIVERY_THREADS = 40
"""Threads running receiver calls: a whole batch at once in Lambda (one invocation per sandbox),
and room for the local worker's concurrent invocations (``local_stack.delivery_worker``)."""
DELIVERY_THREAD_PREFIX = "delivery"
"""Names the delivery function's threads, so logs and tests can tell them from others."""

MAX_RESPONSE_BYTES = 64 * 1024
"""A receiver's answer is read this far and no further; only its status counts."""

USER_AGENT = "messaging-gateway-webhooks"

HEADER_ID = "X-Webhook-Id"
HEADER_EVENT = "X-Webhook-Event"
HEADER_TIMESTAMP = "X-Webhook-Timestamp"
HEADER_SIGNATURE = "X-Webhook-Signature-256"

RESERVED_HEADERS = frozenset(
    name.lower()
    for name in (
        "Content-Type",
        "Content-Length",
        "Transfer-Encoding",
        "Host",
        "Connection",
        HEADER_ID,
        HEADER_EVENT,
        HEADER_TIMESTAMP,
        HEADER_SIGNATURE,
    )
)
"""Headers the gateway sets itself; a configuration's custom header of one of these names is
ignored (the signature and the framing of the request are not the user's to change)."""

ATTRIBUTE_TENANT = "tenant_id"
ATTRIBUTE_EVENT = "event"
ATTRIBUTE_REDELIVERY = "redelivery"
"""SQS message attributes of an envelope on the events queue (the redelivery flag is set by
POST /webhook/deliveries/{id}/redeliver)."""


class AttemptStatus(StrEnum):
    """``status`` of an ``attempt#`` item of the delivery log."""

    DELIVERED = "delivered"
    FAILED = "failed"


class EventStatus(StrEnum):
    """``status`` of an ``event#`` item: where the event stands after its latest attempt."""

    DELIVERED = "delivered"
    PENDING = "pending"  # failed, another attempt is scheduled
    FAILED = "failed"  # attempts exhausted; kept for redelivery
