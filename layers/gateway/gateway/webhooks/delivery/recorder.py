"""Writes the delivery log: one ``attempt#`` item per attempt, one ``event#`` item per event.

The event item keeps the unsigned envelope (or the claim check of one kept in the media
bucket), so POST /webhook/deliveries/{id}/redeliver can send the event again after its
attempts are exhausted; GET /webhook/deliveries lists the attempt items, whose keys sort by
time (both read by ``gateway.webhooks.delivery_log``). Both expire after
:data:`RETENTION_SECONDS`.

The items of many attempts are written together, 25 to a BatchWriteItem. DynamoDB may leave
some of them unprocessed (throttling): those are written again, with a back-off, a few rounds.
:func:`write_log` says which attempts are still not (fully) logged after that, or after a write
that failed outright; the caller keeps their events on the queue, so no event is settled
without its log. The attempts of a batch are gathered for those writes by
:class:`GroupCommit`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from gateway.models.base import transaction_connection
from gateway.models.webhooks import DeliveryModel
from gateway.observability import logger
from gateway.retries import DELIVERY_LOG_WRITE
from gateway.timestamps import iso_utc
from gateway.webhooks.delivery.constants import (
    LOG_BATCH_ITEMS,
    LOG_FLUSH_AFTER_SECONDS,
    RETENTION_SECONDS,
    AttemptStatus,
    EventStatus,
)
from gateway.webhooks.delivery.transport import AttemptResult
from gateway.webhooks.events_queue import IncomingEvent
from gateway.webhooks.store import ATTEMPT_PREFIX, EVENT_PREFIX

MAX_ATTEMPT_IN_KEY = 99
ITEMS_PER_ATTEMPT = 2  # the attempt's item and the event's

Key = tuple[str, str]  # (device_id, delivery_key) of a log item
Items = list[dict[str, Any]]  # log items as DynamoDB attribute maps

_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""The event item's envelope: compact JSON, non-ASCII kept (one encoder for every item)."""


def event_key(event_id: str) -> str:
    return f"{EVENT_PREFIX}{event_id}"


def attempt_key(attempted_at_ms: int, event_id: str, attempt: int) -> str:
    return f"{ATTEMPT_PREFIX}{attempted_at_ms:013d}#{event_id}#{min(attempt, MAX_ATTEMPT_IN_KEY):02d}"


@dataclass(frozen=True)
class Attempted:
    """One attempt made, to be logged: the event, where it went, how it went, what follows."""

    incoming: IncomingEvent
    webhook_url: str
    result: AttemptResult
    status: EventStatus
    at: float  # time.time() at the end of the attempt


def log_items(attempted: Attempted) -> Items:
    """The attempt's item and the event's new state, as DynamoDB attribute maps."""
    incoming, result = attempted.incoming, attempted.result
    common = _item(  # serialized once, shared by both items (nothing changes an item once made)
        device_id=incoming.device_id,
        tenant_id=incoming.tenant_id,
        event_id=incoming.event_id,
        event=incoming.event,
        attempt=incoming.attempt,
        status_code=result.status_code,
        duration_ms=result.duration_ms,
        error=result.error,
        webhook_url=attempted.webhook_url,
        attempted_at=iso_utc(attempted.at),
        expires_at=int(attempted.at) + RETENTION_SECONDS,
    )
    attempt = common | _item(
        delivery_key=attempt_key(int(attempted.at * 1000), incoming.event_id, incoming.attempt),
        status=AttemptStatus.DELIVERED if result.ok else AttemptStatus.FAILED,
    )
    event = common | _item(
        delivery_key=event_key(incoming.event_id),
        status=attempted.status,
        # A claimed envelope is logged as its claim check: it may exceed DynamoDB's item size.
        envelope=incoming.claim_check or _COMPACT.encode(incoming.envelope.fields()),
    )
    return [attempt, event]


def _item(**values: Any) -> dict[str, Any]:
    """The attributes ``DeliveryModel(**values).serialize()`` gives (null values left out),
    made with the model's own attribute serializers but without building a model: that cost
    more CPU than the rest of the event's work in our code."""
    serializers = _serializers()
    item: dict[str, Any] = {}
    for name, value in values.items():
        if value is not None:
            attr_name, attr_type, serialize = serializers[name]
            item[attr_name] = {attr_type: serialize(value)}
    return item


@cache
def _serializers() -> dict[str, tuple[str, str, Callable[[Any], Any]]]:
    """Each attribute's name in the table, DynamoDB type and serializer, looked up once (through
    the model's attribute objects, that cost a third of an item)."""
    return {
        name: (attribute.attr_name, attribute.attr_type, attribute.serialize)
        for name, attribute in DeliveryModel.get_attributes().items()
    }


def write_log(attempts: Sequence[Attempted]) -> list[Attempted]:
    """Log ``attempts`` in BatchWriteItems of 25 items; the attempts not fully logged."""
    owner: dict[Key, Attempted] = {}
    items: Items = []
    for attempted in attempts:
        for item in log_items(attempted):
            owner[_key(item)] = attempted
            items.append(item)
    unwritten: list[Attempted] = []
    for start in range(0, len(items), LOG_BATCH_ITEMS):
        for key in _write_chunk(items[start : start + LOG_BATCH_ITEMS]):
            if owner[key] not in unwritten:
                unwritten.append(owner[key])
    return unwritten


class _Unprocessed(Exception):
    """DynamoDB left some items of a BatchWriteItem unprocessed: written again after a pause."""

    def __init__(self, items: Items) -> None:
        super().__init__(f"{len(items)} items unprocessed")
        self.items = items


def _write_chunk(items: Items) -> list[Key]:
    """Write up to 25 items, again while some are unprocessed (:data:`DELIVERY_LOG_WRITE`);
    the keys left over."""
    # The process's one DynamoDB client; botocore makes its operations at run time, untyped.
    dynamodb: Any = transaction_connection().client
    table = DeliveryModel.Meta.table_name
    try:
        for attempt in DELIVERY_LOG_WRITE.retrying(_Unprocessed):
            with attempt:
                puts = [{"PutRequest": {"Item": item}} for item in items]
                answer = dynamodb.batch_write_item(RequestItems={table: puts})
                unprocessed = answer.get("UnprocessedItems", {}).get(table, [])
                if unprocessed:
                    items = [request["PutRequest"]["Item"] for request in unprocessed]
                    raise _Unprocessed(items)
    except _Unprocessed as left:
        logger.warning("delivery log items left unprocessed", extra={"items": len(left.items)})
        return [_key(item) for item in left.items]
    except Exception:  # any failure leaves these events on the queue
        logger.exception("writing the delivery log failed", extra={"items": len(items)})
        return [_key(item) for item in items]
    return []


def _key(item: dict[str, Any]) -> Key:
    return item["device_id"]["S"], item["delivery_key"]["S"]


LOG_BATCH_EVENTS = 2 * LOG_BATCH_ITEMS // ITEMS_PER_ATTEMPT
"""25 attempts (50 items) fill two BatchWriteItems: a batch of 50 is logged in 4 calls of 25
items, where groups of 12 (24 items, one call) took 5."""

Write = Callable[[list[Attempted]], Awaitable[list[Attempted]]]
"""Writes attempts' log (and what follows it); the attempts not logged."""


class GroupCommit:
    """The attempts of one batch waiting to be logged, ``records`` of them at most.

    A group commit of the delivery log: the records of a batch, handled as asyncio tasks by
    Powertools' batch processor, each wait here for their attempt to be written together with the
    others that ended meanwhile.

    A write goes out as soon as it is full (:data:`LOG_BATCH_EVENTS` attempts, two full BatchWriteItems),
    when no record of the batch ended for :data:`LOG_FLUSH_AFTER_SECONDS` (a slow receiver does
    not hold back the log, and the retries, of the fast ones), or when every record of the batch
    has ended (nothing more can join). Records that end without an attempt to log (dropped,
    malformed, failed) say so with :meth:`GroupCommit.withdraw`, so the last write does not wait
    for them. Everything here runs on the event loop; the write itself runs where ``write`` says.
    """

    def __init__(self, records: int, write: Write) -> None:
        self._running = records  # records that may still bring an attempt
        self._write = write
        self._waiting: list[tuple[Attempted, asyncio.Future[bool]]] = []
        self._pause: asyncio.TimerHandle | None = None  # flushes once no record ended for a while
        self._last_end = 0.0  # the event loop's time when a record last ended
        self._writes: set[asyncio.Task[None]] = set()  # referenced until done (asyncio's advice)

    async def log(self, attempted: Attempted) -> bool:
        """Wait for the attempt to be written with others; whether it was logged."""
        logged: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append((attempted, logged))
        self.withdraw()
        return await logged

    def withdraw(self) -> None:
        """A record has ended: it brings no (more) attempts, and it counts as activity."""
        self._running -= 1
        self._last_end = asyncio.get_running_loop().time()
        if not self._running:  # nothing more can join; no timer left for Lambda's kept loop
            if self._pause is not None:
                self._pause.cancel()
                self._pause = None
            self._flush(len(self._waiting))
            return
        self._flush(len(self._waiting) - len(self._waiting) % LOG_BATCH_EVENTS)
        if self._waiting and self._pause is None:  # one timer, pushed back while records end
            self._wait_for_pause(LOG_FLUSH_AFTER_SECONDS)

    def _wait_for_pause(self, seconds: float) -> None:
        self._pause = asyncio.get_running_loop().call_later(seconds, self._after_pause)

    def _after_pause(self) -> None:
        quiet = asyncio.get_running_loop().time() - self._last_end
        if quiet < LOG_FLUSH_AFTER_SECONDS:
            self._wait_for_pause(LOG_FLUSH_AFTER_SECONDS - quiet)
            return
        self._pause = None
        self._flush(len(self._waiting))

    def _flush(self, count: int) -> None:
        for start in range(0, count, LOG_BATCH_EVENTS):
            group = self._waiting[start : min(start + LOG_BATCH_EVENTS, count)]
            task = asyncio.get_running_loop().create_task(self._commit(group))
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)
        del self._waiting[:count]

    async def _commit(self, group: list[tuple[Attempted, asyncio.Future[bool]]]) -> None:
        try:
            unlogged = {id(entry) for entry in await self._write([entry for entry, _ in group])}
        except Exception as error:  # the records raise it, and stay on the queue
            logger.exception("writing the delivery log failed", extra={"events": len(group)})
            for _, logged in group:
                if not logged.done():  # not given up on (a record overdue when the invocation returns)
                    logged.set_exception(error)
            return
        for entry, logged in group:
            if not logged.done():
                logged.set_result(id(entry) not in unlogged)
