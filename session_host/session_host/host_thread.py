"""A session host on a thread and event loop of its own, for tests and the local stack.

:meth:`HostThread.kill` models a process that dies: the loop just stops, so the host
neither closes its sessions nor releases its leases nor deletes its queue. Pair it with
``SimulatedPort.crash()``, which drops the network connections of that host's sessions.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from session_host.host import SessionHost

T = TypeVar("T")

_KILLED_LOOPS: list[asyncio.AbstractEventLoop] = []
"""Loops of killed hosts, never closed: a collected loop would close itself and run its
abandoned tasks' cleanup code at some random later moment (a crashed process runs none)."""


class HostThread:
    def __init__(self, host: SessionHost) -> None:
        self.host = host
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=f"session-host-{host.host_id}", daemon=True)

    def start(self, timeout: float = 30.0) -> HostThread:
        """Start the thread and the host on it; returns once the host consumes commands."""
        self._thread.start()
        self.call(self.host.start(), timeout)
        return self

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        """Run ``coroutine`` on the host's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self, timeout: float = 60.0) -> None:
        """Stop the host cleanly, then end the loop and the thread."""
        try:
            self.call(self.host.stop(), timeout)
        finally:
            self.call(_cancel_others())
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=10)
            self.loop.close()

    def kill(self) -> None:
        """Abandon the host as a crash would: stop its loop, release and close nothing."""
        self.host.abandon()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        _KILLED_LOOPS.append(self.loop)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()


async def _cancel_others() -> None:
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
