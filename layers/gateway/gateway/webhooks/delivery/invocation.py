"""One invocation of webhook delivery: a batch of SQS records, delivered at once by
Powertools' batch processor, logged in group commits, retries scheduled in batches.

Each record is an asyncio task (``AsyncBatchProcessor``): its attempt runs on a thread of the
invocation's pool (the receiver call blocks), so a slow receiver holds up only its own events.
It then waits for its log, written together with the batch's other attempts
(:mod:`~gateway.webhooks.delivery.group_commit`), on a thread of the same pool. A record that
raises is reported in ``batchItemFailures`` and SQS keeps it: a ``pending`` event, once its
retry delay is set as its visibility timeout (ChangeMessageVisibilityBatch, with the write
that logged it); an event whose log could not be written, with its visibility untouched (back
after the queue's visibility timeout, see docs/delivery.md); a record that is not an envelope
(it ends in EventsDLQ). A delivered or exhausted event returns: processed, SQS deletes it.
"""

from __future__ import annotations

from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aws_lambda_powertools.utilities.batch import (
    AsyncBatchProcessor,
    EventType,
    async_process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from gateway.bus.queues import sqs_client
from gateway.observability import logger
from gateway.webhooks.delivery import recorder, service
from gateway.webhooks.delivery.batch import Batch
from gateway.webhooks.delivery.constants import VISIBILITY_BATCH, EventStatus
from gateway.webhooks.delivery.group_commit import GroupCommit
from gateway.webhooks.delivery.handoff import Handoff
from gateway.webhooks.delivery.incoming import IncomingEvent, MalformedEvent, holds_claim_check, parse_record
from gateway.webhooks.delivery.recorder import Attempted


class NotLogged(Exception):
    """The attempt's log could not be written: the record stays, its visibility untouched."""


class RetryScheduled(Exception):
    """The attempt failed with retries left: the record stays until its retry delay is over."""


def deliver_batch(
    event: dict[str, Any], context: Any, pool: ThreadPoolExecutor
) -> PartialItemFailureResponse:
    """Deliver the records of one SQS event; Lambda's partial batch response."""
    # A processor per invocation (it holds the batch's results), and a receiver that is down
    # failing every record is a normal outcome, not an error of the function.
    processor = AsyncBatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    invocation = _Invocation(len(event.get("Records") or ()), pool)
    try:
        return async_process_partial_response(
            event=event, record_handler=invocation.deliver, processor=processor, context=context
        )
    finally:
        invocation.batch.outcomes.publish()  # what was counted, even when the invocation fails


class _Invocation:
    """What the records of one invocation share: the batch, the pool, the group commit."""

    def __init__(self, records: int, pool: ThreadPoolExecutor) -> None:
        self.batch = Batch()  # configurations read once per device, outcomes counted for the metrics
        self._in_pool = Handoff(pool).run
        self._log = GroupCommit(records, lambda attempts: self._in_pool(settle, attempts))

    async def deliver(self, record: SQSRecord) -> None:
        """Attempt the record's event, wait for its log; raise to keep the record on the queue."""
        attempted: Attempted | None = None
        try:
            attempted = await self._attempt(record)
        finally:
            if attempted is None:  # nothing to log: the group commit need not wait for it
                self._log.withdraw()
        if attempted is None:
            return
        if not await self._log.log(attempted):
            logger.warning(
                "attempt not logged: the event stays on the queue",
                extra={"message_id": record.message_id, "event_id": attempted.incoming.event_id},
            )
            raise NotLogged(attempted.incoming.event_id)
        service.report(attempted, self.batch)
        if attempted.status is EventStatus.PENDING:
            raise RetryScheduled(attempted.incoming.event_id)

    async def _attempt(self, record: SQSRecord) -> Attempted | None:
        try:
            # A claim check's envelope is read from S3: off the event loop, as the attempts are.
            claimed = holds_claim_check(record)
            incoming = await self._in_pool(parse_record, record) if claimed else parse_record(record)
        except MalformedEvent as error:  # stays on the queue, and ends in EventsDLQ
            logger.error("not an envelope", extra={"message_id": record.message_id, "error": str(error)})
            raise
        try:
            return await self._in_pool(service.deliver, incoming, self.batch)
        except Exception:  # not the receiver's doing (DynamoDB, a bug): back after 360 s
            logger.exception("delivering an event failed", extra={"message_id": record.message_id})
            raise


def settle(attempted: list[Attempted]) -> list[Attempted]:
    """Log the attempts, then schedule the retries of those logged; the attempts not logged."""
    unlogged = recorder.write_log(attempted)
    logged = [entry for entry in attempted if all(entry is not other for other in unlogged)]
    schedule_retries([entry.incoming for entry in logged if entry.status is EventStatus.PENDING])
    return unlogged


def schedule_retries(retries: list[IncomingEvent]) -> None:
    """Set each event's visibility timeout to its retry delay. Where that fails the event still
    comes back, after the queue's own visibility timeout."""
    by_queue: defaultdict[str, list[IncomingEvent]] = defaultdict(list)
    for incoming in retries:
        by_queue[incoming.queue_url].append(incoming)
    for queue_url, events in by_queue.items():
        for start in range(0, len(events), VISIBILITY_BATCH):
            chunk = events[start : start + VISIBILITY_BATCH]
            entries = [
                {
                    "Id": str(index),
                    "ReceiptHandle": incoming.receipt_handle,
                    "VisibilityTimeout": service.retry_delay(incoming.attempt),
                }
                for index, incoming in enumerate(chunk)
            ]
            try:
                answer = sqs_client().change_message_visibility_batch(QueueUrl=queue_url, Entries=entries)
            except Exception:  # the retries come later, nothing is lost
                logger.exception("scheduling retries failed", extra={"events": len(chunk)})
                continue
            for failure in answer.get("Failed", []):
                logger.warning(
                    "scheduling a retry failed",
                    extra={"event_id": chunk[int(failure["Id"])].event_id, "code": failure.get("Code")},
                )
