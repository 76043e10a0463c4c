"""The slow lane: configurations whose receivers are slow get a queue and a function of their own.

The per-attempt deadline keeps a slow receiver off other configurations' paths within a batch,
but each batch with an event for it holds one instance of the delivery function for that
receiver's time, and the function runs a capped number of instances. So a configuration whose
attempt ran :data:`SLOW_ATTEMPT_SECONDS` or timed out is **marked slow** for
:data:`SLOW_MARK_SECONDS` (``slow_until`` on its configuration record, which every batch reads
anyway). While it is marked, the main delivery function does not attempt its events: it moves
them, same body and attributes, to the slow lane's queue (``SLOW_EVENTS_QUEUE_URL``), which a
second function with the same handler and a concurrency of its own consumes. There the attempts
are the same (signing, retries, log); a slow attempt marks the configuration anew, an answer in
less than :data:`SLOW_ATTEMPT_SECONDS` lifts the mark, and its next events take the main lane.
See docs/delivery.md.
"""

from __future__ import annotations

import base64
import time
from typing import Any

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from gateway.bus.queues import sqs_client
from gateway.config import get_settings
from gateway.observability import logger
from gateway.webhooks import store
from gateway.webhooks.delivery.batch import InPool, Target
from gateway.webhooks.delivery.constants import (
    ATTRIBUTE_PRIOR_ATTEMPTS,
    SLOW_ATTEMPT_SECONDS,
    SLOW_MARK_SECONDS,
)
from gateway.webhooks.delivery.transport import AttemptResult
from gateway.webhooks.events_queue import IncomingEvent

MOVED_METRIC = "WebhookEventsToSlowLane"


def _queue_name(queue_url: str) -> str:
    return queue_url.rstrip("/").rsplit("/", 1)[-1]


def in_slow_lane(incoming: IncomingEvent) -> bool:
    """Whether the event came from the slow lane's queue (a record's queue URL is built from its
    ARN, so queues are told apart by name)."""
    slow_queue = get_settings().slow_events_queue_url
    return bool(slow_queue) and _queue_name(incoming.queue_url) == _queue_name(slow_queue)


def moves(incoming: IncomingEvent, target: Target) -> bool:
    """Whether the event goes to the slow lane instead of being attempted here: its
    configuration is marked slow, and it is in the main lane (of a deployment with a slow lane)."""
    if target.slow_until <= time.time() or not get_settings().slow_events_queue_url:
        return False
    return not in_slow_lane(incoming)


def is_slow(result: AttemptResult) -> bool:
    """An attempt that timed out, or took :data:`SLOW_ATTEMPT_SECONDS` or more."""
    return result.timed_out or result.duration_ms >= SLOW_ATTEMPT_SECONDS * 1000


def move(record: SQSRecord, incoming: IncomingEvent) -> None:
    """Send the record to the slow lane's queue, same body and attributes, with the attempts
    made so far (its receive count there starts again at 1). Raises when SQS refuses it."""
    attributes = {
        name: _sent_attribute(value)
        for name, value in (record.raw_event.get("messageAttributes") or {}).items()
        if name != ATTRIBUTE_PRIOR_ATTEMPTS
    }
    attributes[ATTRIBUTE_PRIOR_ATTEMPTS] = {"DataType": "Number", "StringValue": str(incoming.attempt - 1)}
    sqs_client().send_message(
        QueueUrl=get_settings().slow_events_queue_url, MessageBody=record.body, MessageAttributes=attributes
    )


def _sent_attribute(received: dict[str, Any]) -> dict[str, Any]:
    """A message attribute as Lambda's SQS event holds it, as SendMessage takes it."""
    sent: dict[str, Any] = {"DataType": received["dataType"]}
    if received.get("stringValue") is not None:
        sent["StringValue"] = received["stringValue"]
    if received.get("binaryValue") is not None:
        sent["BinaryValue"] = base64.b64decode(received["binaryValue"])
    return sent


class Marks:
    """The slow marks one batch sets and lifts: each configuration's at most once either way
    (a batch may hold fifty events of one receiver)."""

    def __init__(self) -> None:
        self._marked: set[tuple[str, str]] = set()
        self._unmarked: set[tuple[str, str]] = set()

    async def slow(self, incoming: IncomingEvent, target: Target, in_pool: InPool) -> None:
        """Mark the event's configuration slow from now on (best effort: a failed write is
        logged; the next slow attempt marks it)."""
        key = (incoming.tenant_id, incoming.device_id)
        if key in self._marked:
            return
        self._marked.add(key)
        until = time.time() + SLOW_MARK_SECONDS
        try:
            await in_pool(store.mark_slow, incoming.tenant_id, incoming.device_id, target.webhook_url, until)
        except Exception:
            logger.exception("marking a configuration slow failed", extra={"device_id": incoming.device_id})
            return
        logger.info(
            "configuration marked slow: its events take the slow lane",
            extra={"tenant_id": incoming.tenant_id, "device_id": incoming.device_id, "slow_until": until},
        )

    async def answered(
        self, incoming: IncomingEvent, target: Target, result: AttemptResult, in_pool: InPool
    ) -> None:
        """After an attempt that was not slow: a marked configuration whose receiver answered
        in the slow lane is unmarked (unless this batch marked it)."""
        key = (incoming.tenant_id, incoming.device_id)
        if (
            result.status_code is None
            or not target.slow_until
            or key in self._marked
            or key in self._unmarked
            or not in_slow_lane(incoming)
        ):
            return
        self._unmarked.add(key)
        try:
            await in_pool(store.unmark_slow, incoming.tenant_id, incoming.device_id, target.slow_until)
        except Exception:
            logger.exception("unmarking a slow configuration failed", extra={"device_id": incoming.device_id})
            return
        logger.info(
            "configuration answered fast in the slow lane: mark lifted",
            extra={"tenant_id": incoming.tenant_id, "device_id": incoming.device_id},
        )
