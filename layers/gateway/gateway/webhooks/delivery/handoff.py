"""Blocking calls of the records' tasks, run on the invocation's thread pool.

``loop.run_in_executor`` chains a ``concurrent.futures.Future`` to an asyncio one and wakes the
event loop once per call (a write to its self-pipe, then a loop iteration): about 15 µs of CPU
per call, a record's share of the batch. Here a finished call leaves its outcome on a list and
only the first outcome of a burst wakes the loop, which settles all that have arrived by then.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

T = TypeVar("T")

_Outcome = tuple["asyncio.Future[Any]", BaseException | None, Any]  # (future, error, result)


class Handoff:
    """Runs functions on ``pool`` for the tasks of the running event loop (one per invocation)."""

    def __init__(self, pool: Executor) -> None:
        self._pool = pool
        self._lock = threading.Lock()
        self._finished: list[_Outcome] = []

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` on the pool, in a copy of the caller's context (its logging keys)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._pool.submit(self._call, loop, future, contextvars.copy_context(), function, args)
        return await future

    def _call(
        self,
        loop: asyncio.AbstractEventLoop,
        future: asyncio.Future[Any],
        context: contextvars.Context,
        function: Callable[..., Any],
        args: tuple[Any, ...],
    ) -> None:
        try:
            outcome: _Outcome = (future, None, context.run(function, *args))
        except BaseException as error:  # the awaiting task raises it
            outcome = (future, error, None)
        with self._lock:
            self._finished.append(outcome)
            first = len(self._finished) == 1
        if first:  # the others of the burst are settled by the same wake-up
            loop.call_soon_threadsafe(self._settle)

    def _settle(self) -> None:
        with self._lock:
            finished, self._finished = self._finished, []
        for future, error, result in finished:
            if future.cancelled():
                continue
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)
