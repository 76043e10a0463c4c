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

ATTEMPTS_PER_CONFIGURATION = MAX_BATCH_SIZE
"""Attempts of one configuration at once in a process (``transport.Lanes``): one full batch's worth."""

DELIVERY_THREADS = 50
"""Threads for the blocking calls of one invocation's records (the configuration reads, the
log writes), shared by the invocations of a process: one per record of a batch. Receiver
calls are not made on them (see ``DELIVERY_LOOP_THREAD``)."""
DELIVERY_LOOP_THREAD = "delivery-http"
"""Names the thread whose event loop makes every receiver call of the process, each attempt a
task under its own deadline (``transport.py``)."""
RESOLVER_THREADS = 32
"""Threads resolving receivers' names (one lookup per name at a time, shared by its attempts):
a name whose resolver hangs holds one until the system resolver gives up."""

IDLE_CONNECTIONS_KEPT = 500
"""Idle keep-alive connections kept in all (half of Lambda's 1,024 file descriptors)."""
KEEPALIVE_SECONDS = 4.0
"""An idle connection is reused for this long: less than the shortest idle timeout common
servers apply (Node.js: 5 s), so the gateway does not send on a connection the receiver is
closing."""

RETURN_MARGIN_SECONDS = 1.0
"""An invocation returns at least this long before the function's timeout: records still
unfinished then (a configuration read or a log write that hangs) are reported as failed."""
SETTLE_RESERVE_SECONDS = 4.0
"""An attempt starts only if it can end (its whole ``timeout``) this long before that return:
time to write its log (5 rounds, 0.75 s of back-off) and schedule its retry. A record whose
attempt would not fit goes back to the queue unattempted."""

LOG_BATCH_ITEMS = 25
"""Items per BatchWriteItem of the delivery log (DynamoDB's limit): two per attempt."""
LOG_FLUSH_AFTER_SECONDS = 0.05
"""Attempts that ended are logged once a write is full (two BatchWriteItems), or when no other
attempt of the batch ended for this long (a slow receiver does not hold up the others' log and
retries)."""

SLOW_ATTEMPT_SECONDS = 5.0
"""An attempt still running after this long, or one that timed out, marks its configuration
slow (``slow_lane.py``): its events then go to the slow lane's queue instead of holding the
main delivery function's instances."""
SLOW_MARK_SECONDS = 600
"""How long a slow mark lasts (each slow attempt sets it anew); a fast answer in the slow lane
lifts it sooner."""

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
ATTRIBUTE_PRIOR_ATTEMPTS = "prior_attempts"
"""SQS message attributes of an envelope on the events queue (the redelivery flag is set by
POST /webhook/deliveries/{id}/redeliver; the attempts made before an event moved to the slow
lane's queue, where its receive count starts again at 1)."""


class AttemptStatus(StrEnum):
    """``status`` of an ``attempt#`` item of the delivery log."""

    DELIVERED = "delivered"
    FAILED = "failed"


class EventStatus(StrEnum):
    """``status`` of an ``event#`` item: where the event stands after its latest attempt."""

    DELIVERED = "delivered"
    PENDING = "pending"  # failed, another attempt is scheduled
    FAILED = "failed"  # attempts exhausted; kept for redelivery
