"""Publishing event envelopes to the events queue, in batches, without dropping any.

Sessions' sinks hand envelopes to :meth:`EventPublisher.publish`, which waits while the
bounded buffer is full: a slow queue slows the sessions down instead of losing events.
Sender tasks take up to 10 envelopes at a time (waiting ``linger`` seconds for more after
the first), send them with SendMessageBatch, retry failed calls with exponential backoff,
and re-send the entries SQS reports as failed. The only envelopes given up are those SQS
refuses for good (``SenderFault``: too large or malformed) and, on a clean stop, those still
unsent when the flush times out: both logged by id, event, tenant, device and size, never
with their data (a message's text is the tenant's, not the operator's logs').
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass
from typing import Any

from gateway.observability import logger
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.network.port import NetworkEvent

MAX_BATCH_ENTRIES = 10
MAX_BATCH_BYTES = 256 * 1024
"""SQS's limit for a whole batch (and for one message)."""
_FIRST_BACKOFF = 0.1
_MAX_BACKOFF = 5.0


def envelope(event: NetworkEvent, device_id: str) -> dict[str, Any]:
    """The delivery envelope of an event; ``id`` stays the same on every delivery attempt."""
    return {
        "id": uuid.uuid4().hex,
        "event": event.name,
        "timestamp": int(event.occurred_at),
        "device_id": device_id,
        "data": dict(event.data),
    }


@dataclass(frozen=True)
class Outgoing:
    body: str
    tenant_id: str
    event: str
    event_id: str = ""
    device_id: str = ""

    def about(self) -> dict[str, Any]:
        """What a log line may tell of this envelope: which event it is, never its data."""
        return {
            "event_id": self.event_id,
            "event": self.event,
            "tenant_id": self.tenant_id,
            "device_id": self.device_id,
            "bytes": len(self.body.encode()),
        }

    def entry(self, entry_id: str) -> dict[str, Any]:
        return {
            "Id": entry_id,
            "MessageBody": self.body,
            "MessageAttributes": {
                "tenant_id": {"DataType": "String", "StringValue": self.tenant_id},
                "event": {"DataType": "String", "StringValue": self.event},
            },
        }


class EventPublisher:
    """Batches envelopes to ``queue_url``; start it on the host's loop, stop it last."""

    def __init__(
        self, sqs: Any, queue_url: str, aws: AwsCalls, *, linger: float, buffer_size: int, senders: int
    ) -> None:
        self._sqs = sqs
        self._queue_url = queue_url
        self._aws = aws
        self._linger = linger
        self._senders = senders
        self._buffer: asyncio.Queue[Outgoing] = asyncio.Queue(buffer_size)
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._send_forever()) for _ in range(self._senders)]

    async def publish(self, envelope: dict[str, Any], tenant_id: str) -> None:
        """Queue one envelope for sending; waits while the buffer is full."""
        body = json.dumps(envelope, separators=(",", ":"), default=str)
        event, event_id, device_id = (str(envelope[name]) for name in ("event", "id", "device_id"))
        await self._buffer.put(Outgoing(body, tenant_id, event, event_id, device_id))

    async def stop(self, timeout: float) -> None:
        """Send what is buffered (up to ``timeout`` seconds), then stop the senders."""
        try:
            async with asyncio.timeout(timeout):
                await self._buffer.join()
        except TimeoutError:
            lost = []
            while not self._buffer.empty():
                lost.append(self._buffer.get_nowait().about())
            logger.error("events not published before the stop", extra={"count": len(lost), "events": lost})
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
        batch, size = [first], len(first.body)
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
            if size + len(item.body) > MAX_BATCH_BYTES:
                return batch, item
            batch.append(item)
            size += len(item.body)
        return batch, None

    async def _send(self, batch: list[Outgoing]) -> None:
        pending = batch
        backoff = _FIRST_BACKOFF
        while pending:
            entries = {str(index): item for index, item in enumerate(pending)}
            try:
                response = await self._aws(
                    self._sqs.send_message_batch,
                    QueueUrl=self._queue_url,
                    Entries=[item.entry(entry_id) for entry_id, item in entries.items()],
                )
            except AWS_ERRORS as error:
                logger.warning(
                    "publishing events failed, retrying", extra={"error": str(error), "count": len(pending)}
                )
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, _MAX_BACKOFF)
                continue
            pending = []
            for failure in response.get("Failed", []):
                item = entries[failure["Id"]]
                if failure.get("SenderFault"):
                    logger.error("SQS refused an event for good", extra={"failure": failure, **item.about()})
                else:
                    pending.append(item)
            if pending:
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, _MAX_BACKOFF)
