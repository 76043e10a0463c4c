"""The event sink of the tests that open network sessions themselves: it records every event.

Shared by both adapters' unit tests (``tests/unit/session_host``) and the neonize adapter's
real-library tier (``tests/real_neonize``); ``tests/`` is on the path of every test folder.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from session_host.network.port import NetworkEvent


class RecordingSink:
    """A session's event sink: records every event in order."""

    def __init__(self) -> None:
        self.events: list[NetworkEvent] = []

    async def __call__(self, event: NetworkEvent) -> None:
        self.events.append(event)

    def named(self, *names: str) -> list[NetworkEvent]:
        return [event for event in self.events if event.name in names]

    def names(self) -> list[str]:
        return [event.name for event in self.events]

    async def wait_for(
        self,
        name: str,
        count: int = 1,
        *,
        where: Callable[[NetworkEvent], bool] | None = None,
        timeout: float = 2.0,
    ) -> NetworkEvent:
        """The ``count``-th event called ``name`` (matching ``where``), waited for on the
        session's loop; AssertionError after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            found = [e for e in self.named(name) if where is None or where(e)]
            if len(found) >= count:
                return found[count - 1]
            if time.monotonic() > deadline:
                raise AssertionError(f"no {name} #{count} within {timeout}s; got {self.names()}")
            await asyncio.sleep(0.002)

    def pairs(self) -> list[tuple[str, dict[str, Any]]]:
        """(name, data) of every event, in order."""
        return [(event.name, dict(event.data)) for event in self.events]
