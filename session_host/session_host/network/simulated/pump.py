"""Ordered hand-off of a session's events to the host's sink, on the session's loop."""

from __future__ import annotations

import asyncio
import logging

from ..port import EventSink, NetworkEvent

logger = logging.getLogger(__name__)

DRAIN_TIMEOUT = 5.0
"""How long :meth:`EventPump.drain` waits for the sink to take the last events."""


class EventPump:
    """An unbounded FIFO of events and the task that awaits the sink for each, in order.

    Nothing is dropped: a sink that raises is logged and the next event follows.
    """

    def __init__(self, sink: EventSink, label: str) -> None:
        self._sink = sink
        self._label = label
        self._queue: asyncio.Queue[NetworkEvent | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run on ``loop`` (the running loop); a pump of a loop that is gone starts afresh."""
        if self._task is not None and not self._task.done() and self._task.get_loop() is loop:
            return
        if self._task is not None and self._task.get_loop() is not loop:
            self._queue = asyncio.Queue()
        self._task = loop.create_task(self._run(self._queue))

    def emit(self, event: NetworkEvent) -> None:
        self._queue.put_nowait(event)

    async def drain(self) -> None:
        """Let callbacks already scheduled run, then wait until the sink took every event."""
        task = self._task
        if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
            return
        await asyncio.sleep(0)
        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=DRAIN_TIMEOUT)
        except TimeoutError:
            logger.warning("%s: the event sink did not take the last events in time", self._label)
            task.cancel()
        self._task = None

    def abandon(self) -> None:
        """Stop at once and drop what the sink has not taken (the host process died)."""
        task, self._task = self._task, None
        if task is not None and not task.done() and not task.get_loop().is_closed():
            task.cancel()
        self._queue = asyncio.Queue()

    async def _run(self, queue: asyncio.Queue[NetworkEvent | None]) -> None:
        while (event := await queue.get()) is not None:
            try:
                await self._sink(event)
            except Exception:
                logger.exception("%s: the event sink failed on %s", self._label, event.name)
