"""Publishing event envelopes to the events queue, in batches, without dropping any and
without ever stopping on one.

Sessions' sinks hand envelopes to :meth:`EventPublisher.publish`, which waits while the
bounded buffer is full: a slow queue slows the sessions down instead of losing events.
Sender tasks take up to 10 envelopes at a time (waiting ``linger`` seconds for more after
the first) and send them with SendMessageBatch.

Sizes are counted as SQS counts them (:mod:`gateway.webhooks.events_queue`): UTF-8 bytes of
the body and of each attribute, at most 256 KiB a message and a request. An envelope too large
for a message is stored in the media bucket first and travels as a claim check.

What fails is retried with exponential backoff (:data:`gateway.retries.EVENT_PUBLISH`): a
failed call (throttling, an outage, missing credentials: nothing an event did, and it would
stop every event alike), the entries SQS reports as failed on its side, a claimed envelope S3
did not take. It lasts as long as the publisher runs: an outage holds the events (and, once
the buffer is full, the sessions) instead of losing them; a stop logs those still unsent. What
SQS (or S3) refuses for good is never sent again: an entry reported as the sender's fault, or a whole request
refused for its content (:data:`REFUSED_CODES`), whose events then go one per request, so
only the one at fault is dropped. A dropped event is logged with its id, name, device and
size, never its body; so are, on a clean stop, those still unsent when the flush times out.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from gateway.observability import logger
from gateway.retries import EVENT_PUBLISH, RetryPolicy
from gateway.webhooks import events_queue
from gateway.webhooks.events_queue import EventEnvelope, QueueMessage
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.network.port import NetworkEvent

MAX_BATCH_ENTRIES = 10
MAX_BATCH_BYTES = events_queue.MAX_MESSAGE_BYTES
"""SQS's limit for a whole batch: the sum of its messages' sizes."""

REFUSED_CODES = frozenset(
    {
        # SendMessageBatch: the request or an entry of it is not one SQS takes.
        "BatchEntryIdsNotDistinct",
        "BatchRequestTooLong",
        "EmptyBatchRequest",
        "InvalidBatchEntryId",
        "InvalidMessageContents",
        "InvalidParameterCombination",
        "InvalidParameterValue",
        "MissingParameter",
        "TooManyEntriesInBatchRequest",
        "UnsupportedOperation",
        "ValidationError",
        # PutObject of a claimed envelope.
        "EntityTooLarge",
        "InvalidArgument",
        "InvalidRequest",
        "KeyTooLongError",
        "MetadataTooLarge",
    }
)
"""Error codes that refuse a request for what it holds: sending the same again cannot succeed.
Any other error (throttling, an outage, credentials, a missing queue) is retried."""


class _NotTaken(Exception):
    """Some envelopes of a batch are not on the queue yet: tried again after a pause."""


def _log_lost(items: list[Outgoing]) -> None:
    if items:
        lost = [item.described() for item in items]
        logger.error("events not published before the stop", extra={"count": len(lost), "events": lost})


def refused_for_good(error: Exception) -> bool:
    """Whether a failed call was refused for its content (see :data:`REFUSED_CODES`)."""
    if not isinstance(error, ClientError):
        return False
    code = str(error.response.get("Error", {}).get("Code", ""))
    return code.removeprefix("AWS.SimpleQueueService.") in REFUSED_CODES


def envelope(event: NetworkEvent, device_id: str) -> EventEnvelope:
    """The delivery envelope of an event; ``id`` stays the same on every delivery attempt."""
    return EventEnvelope.new(event.name, event.data, event.occurred_at, device_id)


@dataclass
class Outgoing:
    """One envelope on its way to the queue."""

    event_id: str
    event: str
    device_id: str
    tenant_id: str
    message: QueueMessage
    stored: bool = False  # its claimed envelope is in the bucket

    @property
    def size(self) -> int:
        return self.message.size

    @property
    def ready(self) -> bool:
        """Whether its message can be sent: inline, or its claimed envelope stored."""
        return self.message.claimed is None or self.stored

    def entry(self, entry_id: str) -> dict[str, Any]:
        return {
            "Id": entry_id,
            "MessageBody": self.message.body,
            "MessageAttributes": self.message.attributes,
        }

    def described(self) -> dict[str, Any]:
        """What the logs say of it: never its body."""
        return {
            "event_id": self.event_id,
            "event": self.event,
            "device_id": self.device_id,
            "tenant_id": self.tenant_id,
            "message_bytes": self.size,
            "claimed_bytes": None if self.message.claimed is None else len(self.message.claimed),
        }


class EventPublisher:
    """Batches envelopes to ``queue_url``; start it on the host's loop, stop it last.
    ``store`` puts a claimed envelope in the bucket (tests pass their own)."""

    def __init__(
        self,
        sqs: Any,
        queue_url: str,
        aws: AwsCalls,
        *,
        linger: float,
        buffer_size: int,
        senders: int,
        store: Callable[[QueueMessage], None] = events_queue.store,
        retry: RetryPolicy = EVENT_PUBLISH,
    ) -> None:
        self._sqs = sqs
        self._retry = retry
        self._store = store
        self._queue_url = queue_url
        self._aws = aws
        self._linger = linger
        self._senders = senders
        self._buffer: asyncio.Queue[Outgoing] = asyncio.Queue(buffer_size)
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = asyncio.Event()

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._send_forever()) for _ in range(self._senders)]

    async def publish(self, envelope: EventEnvelope, tenant_id: str) -> None:
        """Queue one envelope for sending; waits while the buffer is full."""
        # ASCII: SQS takes every character.
        body = json.dumps(envelope.fields(), separators=(",", ":"), default=str)
        ids = {"event_id": envelope.id, "event": envelope.event.value}
        device_id = envelope.device_id
        try:
            message = events_queue.queue_message(body, tenant_id=tenant_id, device_id=device_id, **ids)
        except ValueError as error:  # ids the gateway never issues: no key to store it under
            logger.error(
                "event not published: no claim-check key for it",
                extra={**ids, "device_id": device_id, "tenant_id": tenant_id, "reason": str(error)},
            )
            return
        outgoing = Outgoing(ids["event_id"], ids["event"], device_id, tenant_id, message)
        await self._buffer.put(outgoing)

    async def stop(self, timeout: float) -> None:
        """Send what is buffered (up to ``timeout`` seconds), then stop the senders."""
        try:
            async with asyncio.timeout(timeout):
                await self._buffer.join()
        except TimeoutError:
            lost = []
            while not self._buffer.empty():
                lost.append(self._buffer.get_nowait())
            _log_lost(lost)
        self._stopping.set()  # a batch still being retried is given up (and logged) too
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _send_forever(self) -> None:
        carry: Outgoing | None = None
        while True:
            batch, carry = await self._collect(carry)
            try:
                await self._send(batch)
            finally:
                for _ in batch:
                    self._buffer.task_done()

    async def _collect(self, carry: Outgoing | None) -> tuple[list[Outgoing], Outgoing | None]:
        """A batch: the first envelope, then whatever arrives within ``linger``; an envelope
        that would make the batch too large is carried over to the next one."""
        first = carry if carry is not None else await self._buffer.get()
        batch, size = [first], first.size
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._linger
        while len(batch) < MAX_BATCH_ENTRIES:
            try:
                item = self._buffer.get_nowait()
            except asyncio.QueueEmpty:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                try:
                    async with asyncio.timeout(remaining):
                        item = await self._buffer.get()
                except TimeoutError:
                    break
            if size + item.size > MAX_BATCH_BYTES:
                return batch, item
            batch.append(item)
            size += item.size
        return batch, None

    async def _send(self, batch: list[Outgoing]) -> None:
        """Send ``batch`` until every envelope is on the queue or refused for good, or the
        publisher stops (then those left are logged as lost)."""
        pending = batch
        try:
            async for attempt in self._retry.async_retrying(_NotTaken, until=self._stopping.is_set):
                with attempt:
                    pending = await self._attempt(pending)
                    if pending:
                        raise _NotTaken
        finally:  # ended by the stop, or cancelled by it
            if pending:
                _log_lost(pending)

    async def _attempt(self, items: list[Outgoing]) -> list[Outgoing]:
        """One try at sending ``items``; those to try again."""
        retry = await self._store_claimed(items)
        ready = [item for item in items if item.ready]
        if not ready:
            return retry
        entries = {str(index): item for index, item in enumerate(ready)}
        try:
            response = await self._aws(
                self._sqs.send_message_batch,
                QueueUrl=self._queue_url,
                Entries=[item.entry(entry_id) for entry_id, item in entries.items()],
            )
        except AWS_ERRORS as error:
            if not refused_for_good(error):
                logger.warning(
                    "publishing events failed, retrying", extra={"error": str(error), "count": len(ready)}
                )
                return retry + ready
            if len(ready) == 1:
                self._drop(ready[0], str(error))
                return retry
            logger.warning(
                "the events queue refused a whole batch: its events go one by one",
                extra={"error": str(error), "count": len(ready)},
            )
            for item in ready:
                await self._send([item])
            return retry
        for failure in response.get("Failed", []):
            item = entries[failure["Id"]]
            if failure.get("SenderFault"):
                self._drop(item, f"{failure.get('Code')}: {failure.get('Message')}")
            else:
                retry.append(item)
        return retry

    async def _store_claimed(self, items: list[Outgoing]) -> list[Outgoing]:
        """Store the claimed envelopes of ``items`` not stored yet, at once; those to try again
        (the ones S3 refused for good are dropped)."""
        unstored = [item for item in items if not item.ready]
        results = await asyncio.gather(
            *(self._aws(self._store, item.message) for item in unstored), return_exceptions=True
        )
        retry = []
        for item, result in zip(unstored, results, strict=True):
            if result is None:
                item.stored = True
            elif isinstance(result, AWS_ERRORS) and not refused_for_good(result):
                logger.warning(
                    "storing a large event failed, retrying", extra={**item.described(), "error": str(result)}
                )
                retry.append(item)
            elif isinstance(result, Exception):
                self._drop(item, f"storing it failed: {result}")
            else:
                raise result
        return retry

    @staticmethod
    def _drop(item: Outgoing, reason: str) -> None:
        logger.error(
            "an event the events queue or the bucket refused for good is dropped",
            extra={**item.described(), "reason": reason},
        )
