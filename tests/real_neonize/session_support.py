"""Helpers of the real-library tier: the session factory behind the ``neonize_sessions``
fixture (a ``recording_sink.RecordingSink`` per session), waiting with deadlines, and the
process's resource counts."""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from recording_sink import RecordingSink

from session_host.network.neonize import NeonizePort, NeonizeSession, NeonizeTimings

T = TypeVar("T")

REAL_TIMINGS = NeonizeTimings(first_qr_wait=1.0, sink_timeout=5.0, stop_join=5.0, call_deadline=2.0)
"""The adapter's timings for this tier: short waits; the start hold is the production one."""


class SessionFactory:
    """Opens neonize sessions on one port; closes all of them at the end of the test."""

    def __init__(self, port: NeonizePort, data_dir: Path) -> None:
        self.port = port
        self.data_dir = data_dir
        self.sessions: list[NeonizeSession] = []

    def open(self, device_id: str | None = None) -> tuple[NeonizeSession, RecordingSink]:
        """A session for a new device (a unique id unless given) and its recording sink."""
        sink = RecordingSink()
        device_id = device_id or f"dev-{uuid.uuid4().hex[:12]}"
        session = self.port.open_session(device_id, data_dir=self.data_dir, sink=sink)
        self.sessions.append(session)
        return session, sink

    def close_all(self) -> None:
        asyncio.run(self.port.close_all(timeout=0.0))


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


async def until(condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Wait for ``condition`` (polled), failing after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            names = sorted(thread.name for thread in threading.enumerate())
            raise AssertionError(f"{what} not reached within {timeout:g} s (threads: {names})")
        await asyncio.sleep(0.005)


async def timed(awaitable: Awaitable[Any]) -> tuple[float, Any]:
    """Seconds ``awaitable`` took, and what it gave: its result or the exception it raised."""
    started = time.monotonic()
    try:
        outcome = await awaitable
    except Exception as exc:  # the tests time calls that are refused on purpose
        outcome = exc
    return time.monotonic() - started, outcome


def python_threads() -> int:
    return threading.active_count()


def os_threads() -> int:
    """Every thread of the process, the Go runtime's included."""
    return int(_status("Threads"))


def rss_kib() -> int:
    return int(_status("VmRSS").split()[0])


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd")) - 1


def _status(field: str) -> str:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return line.split(":", 1)[1].strip()
    raise KeyError(field)
