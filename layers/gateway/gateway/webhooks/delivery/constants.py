"""The numbers and names of webhook delivery, gathered in one place."""

from __future__ import annotations

from enum import StrEnum

RETENTION_SECONDS = 30 * 24 * 3600
"""How long the delivery log keeps an event and its attempts (DynamoDB TTL)."""

MAX_RETRY_DELAY_SECONDS = 10
"""The n-th failed attempt is retried n seconds later, and ``retry_attempts`` is at most 10."""

MAX_BATCH_SIZE = 50
"""The events queue's event source mapping hands the function at most this many records
(template.yaml's ``BatchSize``, which the local worker reads too)."""

DELIVERY_THREADS = 50
"""Threads running the receiver calls of one invocation: a whole batch at once, so a slow
receiver holds up only its own events and a batch takes about its slowest receiver (which
fits in the function's timeout). The local worker's concurrent invocations get a pool each."""

CONNECTIONS_PER_ORIGIN = DELIVERY_THREADS
"""Keep-alive connections kept per receiver origin (scheme, host, port), shared by the
threads: one per thread, so a batch whose events all go to one receiver reuses its
connections (with 10 kept, 40 of its 50 calls opened and closed a connection of their own).
More concurrent calls to one origin (the local worker's concurrent invocations) open more
connections; the extra ones are closed after use instead of kept."""
IDLE_CONNECTIONS_KEPT = 500
"""Idle connections kept in all (those of the least recently used origins are dropped first):
half of Lambda's 1,024 file descriptors."""

LOG_BATCH_ITEMS = 25
"""Items per BatchWriteItem of the delivery log (DynamoDB's limit): two per attempt."""
LOG_FLUSH_AFTER_SECONDS = 0.05
"""Attempts that ended are logged once a write is full (two BatchWriteItems), or when no other
attempt of the batch ended for this long (a slow receiver does not hold up the others' log and
retries)."""
LOG_WRITE_ROUNDS = 5
"""Rounds of writing the items DynamoDB left unprocessed, backing off between them, before the
events they belong to are given back to the queue (see docs/delivery.md)."""
LOG_RETRY_BASE_SECONDS = 0.05
"""The first back-off between rounds; it doubles each round (50 ms ... 800 ms)."""

VISIBILITY_BATCH = 10
"""Entries per ChangeMessageVisibilityBatch (SQS's limit)."""
DELIVERY_THREAD_PREFIX = "delivery"
"""Names the delivery function's threads, so logs and tests can tell them from others."""

MAX_RESPONSE_BYTES = 64 * 1024
"""A receiver's answer is read this far and no further; only its status counts."""

USER_AGENT = "messaging-gateway-webhooks"

HEADER_ID = "X-Webhook-Id"
HEADER_EVENT = "X-Webhook-Event"
HEADER_TIMESTAMP = "X-Webhook-Timestamp"
HEADER_SIGNATURE = "X-Webhook-Signature-256"
STANDARD_ID = "webhook-id"
STANDARD_TIMESTAMP = "webhook-timestamp"
STANDARD_SIGNATURE = "webhook-signature"
"""The Standard Webhooks headers of a signed delivery: the envelope id, the attempt's Unix
seconds and ``v1,<base64 HMAC>`` (``gateway.webhooks.signing``)."""

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
        STANDARD_ID,
        STANDARD_TIMESTAMP,
        STANDARD_SIGNATURE,
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
