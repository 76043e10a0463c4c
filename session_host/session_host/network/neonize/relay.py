"""The path of one session's events from neonize's client thread to the host's event loop.

neonize reports events on the thread of the blocking ``connect()``, one at a time.
:meth:`EventRelay.emit` hands each to the loop with ``asyncio.run_coroutine_threadsafe`` and
waits for ``sink(event)`` to finish: events reach the sink in order, and a slow sink slows the
Go side (bounded by whatsmeow's buffer) instead of filling an unbounded queue. A sink that
fails is logged, never raised into the library.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

from ..port import EventSink, NetworkEvent

logger = logging.getLogger(__name__)


class EventRelay:
    """Delivers a session's events to its sink on the loop the session was connected from."""

    def __init__(self, device_id: str, sink: EventSink, sink_timeout: float) -> None:
        self._device_id = device_id
        self._sink = sink
        self._sink_timeout = sink_timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._tasks: set[asyncio.Future[Any]] = set()

    def bind(self) -> None:
        """Deliver on the running loop from now on (each ``connect()`` binds its loop)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop

    def replace_sink(self, sink: EventSink) -> None:
        """Send the events to another sink from now on (a later ``open_session``)."""
        self._sink = sink

    async def deliver(self, event: NetworkEvent) -> None:
        """Hand one event to the sink, on the loop; a failing sink is logged."""
        try:
            await self._sink(event)
        except Exception:
            logger.exception("device %s: event sink failed for %s", self._device_id, event.name)

    def emit(self, event: NetworkEvent | None) -> None:
        """Deliver an event from the client thread and wait for the sink (ordered)."""
        if event is None:
            return
        loop = self._loop
        if loop is None or loop.is_closed():
            logger.error("device %s: no event loop, %s not delivered", self._device_id, event.name)
            return
        if threading.get_ident() == self._loop_thread:
            self.track(loop.create_task(self.deliver(event)))
            return
        try:
            future = asyncio.run_coroutine_threadsafe(self.deliver(event), loop)
        except RuntimeError:
            logger.error("device %s: event loop closed, %s not delivered", self._device_id, event.name)
            return
        try:
            future.result(timeout=self._sink_timeout)
        except TimeoutError:
            logger.error(
                "device %s: sink still busy with %s after %g s",
                self._device_id,
                event.name,
                self._sink_timeout,
            )

    def on_loop(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` on the loop, from any thread (dropped once the loop is gone)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(callback, *args)

    def track(self, future: asyncio.Future[Any]) -> None:
        """Keep a task of the session alive until it is done."""
        self._tasks.add(future)
        future.add_done_callback(self._tasks.discard)
