"""One invocation of webhook delivery: a batch of SQS records, delivered at once by
Powertools' batch processor, logged in group commits, retries scheduled in batches.

Each record is an asyncio task (``AsyncBatchProcessor``): its configuration is read on a thread
of the invocation's pool (DynamoDB blocks; once per device and batch), its attempt runs on the
transport's event loop under the configuration's ``timeout`` (so a slow receiver holds up only
its own events; ``transport.Lanes`` bounds a configuration's attempts at once), and it then
waits for its log, written together with the batch's other attempts
(:class:`~gateway.webhooks.delivery.recorder.GroupCommit`), on a thread of the same pool. A record that
raises is reported in ``batchItemFailures`` and SQS keeps it: a ``pending`` event, once its
retry delay is set as its visibility timeout (ChangeMessageVisibilityBatch, with the write
that logged it); an event whose log could not be written, with its visibility untouched (back
after the queue's visibility timeout, see docs/delivery.md); a record that is not an envelope
(it ends in EventsDLQ). A delivered or exhausted event returns: processed, SQS deletes it.

The invocation keeps to Lambda's remaining time (:class:`Budget`): an attempt starts only if
its whole ``timeout`` and the writing of its log fit before the invocation must return; a record
whose attempt would not fit is given back to the queue unattempted (visible again at once), and
a record still unfinished when the invocation must return is reported as failed. So the
function never times out: no delivered event is reported failed by a timeout and sent again.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from aws_lambda_powertools.utilities.batch import (
    AsyncBatchProcessor,
    EventType,
    async_process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from gateway.bus.queues import sqs_client
from gateway.observability import logger
from gateway.webhooks.delivery import recorder, service, slow_lane
from gateway.webhooks.delivery.batch import Batch, Target
from gateway.webhooks.delivery.constants import (
    RETURN_MARGIN_SECONDS,
    SETTLE_RESERVE_SECONDS,
    SLOW_ATTEMPT_SECONDS,
    VISIBILITY_BATCH,
    EventStatus,
)
from gateway.webhooks.delivery.recorder import Attempted, GroupCommit
from gateway.webhooks.delivery.transport import NotStarted
from gateway.webhooks.events_queue import IncomingEvent, MalformedEvent, holds_claim_check, parse_record

T = TypeVar("T")

DEFERRED_METRIC = "WebhookEventsDeferred"


class NotLogged(Exception):
    """The attempt's log could not be written: the record stays, its visibility untouched."""


class RetryScheduled(Exception):
    """The attempt failed with retries left: the record stays until its retry delay is over."""


class NotAttempted(Exception):
    """The attempt would not end before the invocation must return: the record goes back to
    the queue unattempted."""


class Overdue(Exception):
    """The record was still unfinished when the invocation had to return: it stays on the
    queue, its visibility untouched."""


@dataclass(frozen=True)
class Budget:
    """The invocation's time: when it must return (``time.monotonic()``, the event loop's clock)."""

    returns_at: float

    @classmethod
    def of(cls, context: Any) -> Budget:
        """From the Lambda context: :data:`RETURN_MARGIN_SECONDS` before the function times out."""
        remaining = context.get_remaining_time_in_millis() / 1000
        return cls(time.monotonic() + remaining - RETURN_MARGIN_SECONDS)

    def left(self) -> float:
        return self.returns_at - time.monotonic()

    def start_by(self, timeout: float) -> float:
        """The latest an attempt of ``timeout`` seconds may start for it, and its log, to end
        in time."""
        return self.returns_at - SETTLE_RESERVE_SECONDS - timeout


def deliver_batch(
    event: dict[str, Any], context: Any, pool: ThreadPoolExecutor
) -> PartialItemFailureResponse:
    """Deliver the records of one SQS event; Lambda's partial batch response."""
    # A processor per invocation (it holds the batch's results), and a receiver that is down
    # failing every record is a normal outcome, not an error of the function.
    processor = AsyncBatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    invocation = _Invocation(len(event.get("Records") or ()), pool, Budget.of(context))
    try:
        return async_process_partial_response(
            event=event, record_handler=invocation.deliver, processor=processor, context=context
        )
    finally:
        give_back(invocation.unattempted)
        invocation.batch.outcomes.publish()  # what was counted, even when the invocation fails


class _Invocation:
    """What the records of one invocation share: the batch, the pool, the budget, the group
    commit."""

    def __init__(self, records: int, pool: ThreadPoolExecutor, budget: Budget) -> None:
        self.batch = Batch()  # configurations read once per device, outcomes counted for the metrics
        self.unattempted: list[IncomingEvent] = []  # given back to the queue at the end
        self.marks = slow_lane.Marks()  # the slow marks this batch sets and lifts
        self._pool = pool
        self._budget = budget
        self._log = GroupCommit(records, lambda attempts: self._in_pool(settle, attempts))

    async def deliver(self, record: SQSRecord) -> None:
        """Handle the record within the invocation's time; raise to keep it on the queue."""
        try:
            async with asyncio.timeout(self._budget.left()):
                await self._deliver(record)
        except TimeoutError as overdue:
            logger.warning(
                "record unfinished when the invocation had to return", extra={"message_id": record.message_id}
            )
            raise Overdue(record.message_id) from overdue

    async def _deliver(self, record: SQSRecord) -> None:
        """Attempt the record's event, wait for its log."""
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
            target = await service.subscribed(incoming, self.batch, self._in_pool)
            if target is None:
                return None
            if slow_lane.moves(incoming, target) and await self._moved(record, incoming):
                return None
            start_by = self._budget.start_by(target.timeout)
            if time.monotonic() <= start_by:
                return await self._watched(incoming, target, start_by)
        except NotStarted:
            pass  # the configuration's other attempts held every slot until too late
        except Exception:  # not the receiver's doing (DynamoDB, a bug): back after 360 s
            logger.exception("delivering an event failed", extra={"message_id": record.message_id})
            raise
        raise self._deferred(incoming)

    async def _moved(self, record: SQSRecord, incoming: IncomingEvent) -> bool:
        """Move the event of a configuration marked slow to the slow lane's queue; False when
        SQS refused it (it is then attempted here, as it would have been without the mark)."""
        try:
            await self._in_pool(slow_lane.move, record, incoming)
        except Exception:
            logger.exception("moving an event to the slow lane failed", extra={"event_id": incoming.event_id})
            return False
        self.batch.outcomes.count(slow_lane.MOVED_METRIC)
        logger.debug("event moved to the slow lane", extra={"event_id": incoming.event_id})
        return True

    async def _watched(self, incoming: IncomingEvent, target: Target, start_by: float) -> Attempted:
        """The attempt, watched for slowness: an attempt still running after
        :data:`SLOW_ATTEMPT_SECONDS` marks its configuration slow at once (the batches after
        this one move its events), one that ended slow (timed out) when it ends; a fast answer
        in the slow lane lifts the mark."""
        attempt = asyncio.ensure_future(service.deliver(incoming, target, start_by))
        try:
            done, _ = await asyncio.wait({attempt}, timeout=SLOW_ATTEMPT_SECONDS)
            if not done:
                await self.marks.slow(incoming, target, self._in_pool)
            attempted = await attempt
        except BaseException:
            attempt.cancel()  # the invocation had to return: the attempt is cut
            raise
        if slow_lane.is_slow(attempted.result):
            await self.marks.slow(incoming, target, self._in_pool)
        else:
            await self.marks.answered(incoming, target, attempted.result, self._in_pool)
        return attempted

    def _deferred(self, incoming: IncomingEvent) -> NotAttempted:
        """The event's attempt would end too late: it is given back to the queue at the end."""
        self.unattempted.append(incoming)
        self.batch.outcomes.count(DEFERRED_METRIC)
        logger.info(
            "event not attempted: the invocation's time would run out; back to the queue",
            extra={
                "event_id": incoming.event_id,
                "device_id": incoming.device_id,
                "seconds_left": self._budget.left(),
            },
        )
        return NotAttempted(incoming.event_id)

    async def _in_pool(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` on the pool, in a copy of the caller's context (its logging keys)."""
        call = functools.partial(contextvars.copy_context().run, function, *args)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)


def settle(attempted: list[Attempted]) -> list[Attempted]:
    """Log the attempts, then schedule the retries of those logged; the attempts not logged."""
    unlogged = recorder.write_log(attempted)
    logged = [entry for entry in attempted if all(entry is not other for other in unlogged)]
    schedule_retries([entry.incoming for entry in logged if entry.status is EventStatus.PENDING])
    return unlogged


def schedule_retries(retries: list[IncomingEvent]) -> None:
    """Set each event's visibility timeout to its retry delay. Where that fails the event still
    comes back, after the queue's own visibility timeout."""
    _set_visibility(
        [(incoming, service.retry_delay(incoming.attempt)) for incoming in retries], "scheduling a retry"
    )


def give_back(unattempted: list[IncomingEvent]) -> None:
    """Make the events no attempt was made for visible again at once."""
    _set_visibility([(incoming, 0) for incoming in unattempted], "giving back an event")


def _set_visibility(changes: list[tuple[IncomingEvent, int]], what: str) -> None:
    """ChangeMessageVisibilityBatch, per queue, 10 at a time; failures are logged (the events
    come back after the queue's visibility timeout)."""
    by_queue: defaultdict[str, list[tuple[IncomingEvent, int]]] = defaultdict(list)
    for incoming, seconds in changes:
        by_queue[incoming.queue_url].append((incoming, seconds))
    for queue_url, events in by_queue.items():
        for start in range(0, len(events), VISIBILITY_BATCH):
            chunk = events[start : start + VISIBILITY_BATCH]
            entries = [
                {"Id": str(index), "ReceiptHandle": incoming.receipt_handle, "VisibilityTimeout": seconds}
                for index, (incoming, seconds) in enumerate(chunk)
            ]
            try:
                answer = sqs_client().change_message_visibility_batch(QueueUrl=queue_url, Entries=entries)
            except Exception:  # the events come later, nothing is lost
                logger.exception(f"{what} failed", extra={"events": len(chunk)})
                continue
            for failure in answer.get("Failed", []):
                logger.warning(
                    f"{what} failed",
                    extra={"event_id": chunk[int(failure["Id"])][0].event_id, "code": failure.get("Code")},
                )
