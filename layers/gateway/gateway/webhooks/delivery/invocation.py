"""One invocation of webhook delivery: a batch of SQS records, delivered at once, logged in
batches, retries scheduled, and the records to keep on the queue reported.

Every event of the batch is attempted on its own thread of the invocation's pool (the receiver
call blocks), so a slow receiver holds up only its own events. As attempts end, the invoking
thread writes their log items, a full BatchWriteItem (12 attempts) at a time, and the rest as
soon as no attempt ended for :data:`LOG_FLUSH_AFTER_SECONDS` (a group commit), then settles
them: a ``pending`` event gets its retry delay as its visibility
timeout (ChangeMessageVisibilityBatch) and is kept; a delivered or exhausted one is done with.
An event whose log could not be written is kept too, with its visibility untouched: it comes
back after the queue's visibility timeout and is attempted again (see docs/delivery.md).
"""

from __future__ import annotations

import contextvars
from collections import defaultdict
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from gateway.bus.queues import sqs_client
from gateway.observability import logger
from gateway.webhooks.delivery import recorder, service
from gateway.webhooks.delivery.batch import Batch
from gateway.webhooks.delivery.constants import (
    LOG_BATCH_ITEMS,
    LOG_FLUSH_AFTER_SECONDS,
    VISIBILITY_BATCH,
    EventStatus,
)
from gateway.webhooks.delivery.incoming import IncomingEvent, MalformedEvent, parse_record
from gateway.webhooks.delivery.recorder import ITEMS_PER_ATTEMPT, Attempted

LOG_BATCH_EVENTS = LOG_BATCH_ITEMS // ITEMS_PER_ATTEMPT  # 12 events fill a BatchWriteItem (24 items)


def deliver_batch(records: list[dict[str, Any]], pool: ThreadPoolExecutor) -> list[str]:
    """Deliver the records of one SQS event; the message ids of those to keep on the queue."""
    batch = Batch()  # configurations read once per device, outcomes counted for the metrics
    keep: list[str] = []
    started: dict[Future[Attempted | None], str] = {}
    for raw in records:
        record = SQSRecord(raw)
        try:
            incoming = parse_record(record)
        except MalformedEvent as error:  # stays on the queue, and ends in EventsDLQ
            logger.error("not an envelope", extra={"message_id": record.message_id, "error": str(error)})
            keep.append(record.message_id)
            continue
        run = contextvars.copy_context().run  # the invocation's logging keys follow the event
        started[pool.submit(run, service.deliver, incoming, batch)] = record.message_id
    try:
        keep += _log_as_they_end(started, batch)
    finally:
        batch.outcomes.publish()  # what was counted, even when the invocation fails
    return keep


def _log_as_they_end(started: dict[Future[Attempted | None], str], batch: Batch) -> list[str]:
    """Wait for the attempts, logging and settling them in full writes while they keep ending
    and the rest when they pause or all ended; the message ids to keep on the queue."""
    keep: list[str] = []
    running = set(started)
    ended: list[tuple[str, Attempted]] = []
    while running:
        done, running = wait(running, timeout=LOG_FLUSH_AFTER_SECONDS, return_when=FIRST_COMPLETED)
        for future in done:
            try:
                outcome = future.result()
            except Exception:  # not the receiver's doing (DynamoDB, a bug): back after 360 s
                logger.exception("delivering an event failed", extra={"message_id": started[future]})
                keep.append(started[future])
                continue
            if outcome is not None:
                ended.append((started[future], outcome))
        full = len(ended) if not done or not running else len(ended) - len(ended) % LOG_BATCH_EVENTS
        if full:
            keep += settle(ended[:full], batch)
            ended = ended[full:]
    return keep


def settle(attempted: list[tuple[str, Attempted]], batch: Batch) -> list[str]:
    """Log the attempts, schedule the retries; the message ids to keep on the queue."""
    unlogged = {id(entry) for entry in recorder.write_log([entry for _, entry in attempted])}
    keep: list[str] = []
    retries: list[IncomingEvent] = []
    for message_id, entry in attempted:
        if id(entry) in unlogged:
            logger.warning(
                "attempt not logged: the event stays on the queue",
                extra={"message_id": message_id, "event_id": entry.incoming.event_id},
            )
            keep.append(message_id)
            continue
        service.report(entry, batch)
        if entry.status is EventStatus.PENDING:
            retries.append(entry.incoming)
            keep.append(message_id)
    schedule_retries(retries)
    return keep


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
