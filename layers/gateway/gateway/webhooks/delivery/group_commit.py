"""Group commit of the delivery log: the records of a batch, handled as asyncio tasks by
Powertools' batch processor, each wait here for their attempt to be written together with the
others that ended meanwhile.

A write goes out as soon as it is full (:data:`LOG_BATCH_EVENTS` attempts, two full BatchWriteItems),
when no record of the batch ended for :data:`LOG_FLUSH_AFTER_SECONDS` (a slow receiver does
not hold back the log, and the retries, of the fast ones), or when every record of the batch
has ended (nothing more can join). Records that end without an attempt to log (dropped,
malformed, failed) say so with :meth:`GroupCommit.withdraw`, so the last write does not wait
for them. Everything here runs on the event loop; the write itself runs where ``write`` says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from gateway.observability import logger
from gateway.webhooks.delivery.constants import LOG_BATCH_ITEMS, LOG_FLUSH_AFTER_SECONDS
from gateway.webhooks.delivery.recorder import ITEMS_PER_ATTEMPT, Attempted

LOG_BATCH_EVENTS = 2 * LOG_BATCH_ITEMS // ITEMS_PER_ATTEMPT
"""25 attempts (50 items) fill two BatchWriteItems: a batch of 50 is logged in 4 calls of 25
items, where groups of 12 (24 items, one call) took 5."""

Write = Callable[[list[Attempted]], Awaitable[list[Attempted]]]
"""Writes attempts' log (and what follows it); the attempts not logged."""


class GroupCommit:
    """The attempts of one batch waiting to be logged, ``records`` of them at most."""

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
