"""Helpers for tests that drive sessions of the simulated network."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from ..port import NetworkEvent

T = TypeVar("T")


class EventRecorder:
    """An event sink that keeps every event, with waits for the ones a test expects."""

    def __init__(self) -> None:
        self.events: list[NetworkEvent] = []

    async def __call__(self, event: NetworkEvent) -> None:
        self.events.append(event)

    def names(self) -> list[str]:
        return [event.name for event in self.events]

    def of(self, name: str) -> list[NetworkEvent]:
        return [event for event in self.events if event.name == name]

    async def wait_for(
        self,
        name: str,
        count: int = 1,
        *,
        where: Callable[[NetworkEvent], bool] | None = None,
        timeout: float = 2.0,
    ) -> NetworkEvent:
        """The ``count``-th event called ``name`` (matching ``where``); AssertionError after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            found = [e for e in self.of(name) if where is None or where(e)]
            if len(found) >= count:
                return found[count - 1]
            if time.monotonic() > deadline:
                raise AssertionError(f"no {name} #{count} within {timeout}s; got {self.names()}")
            await asyncio.sleep(0.002)


class LoopThread:
    """An event loop on its own thread, like a session host's; for tests that call from outside."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 5.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        """Cancel what still runs on the loop (timers of sessions left open), then stop it."""
        self.run(_cancel_others())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self.loop.close()

    def __enter__(self) -> LoopThread:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


async def _cancel_others() -> None:
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
