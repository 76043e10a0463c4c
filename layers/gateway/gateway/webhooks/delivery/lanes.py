"""How many attempts of one configuration run at once in a process: at most
:data:`ATTEMPTS_PER_CONFIGURATION`, what one invocation of a full batch makes.

In Lambda a sandbox runs one invocation at a time, so the bound never binds there. The local
worker runs many invocations in one process: a burst for one receiver (a history sync of
thousands of messages) would otherwise reach it as thousands of connections at once. An
attempt waits for its configuration's own attempts only, never for another configuration's,
and gives up (:class:`NotStarted`) if it could not start by the time its invocation allows.
Everything here runs on the transport's event loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from gateway.webhooks.delivery.constants import ATTEMPTS_PER_CONFIGURATION


class NotStarted(Exception):
    """The attempt could not start by its deadline: its configuration's other attempts held
    every slot until then. Nothing was sent."""


@dataclass
class _Lane:
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(ATTEMPTS_PER_CONFIGURATION))
    users: int = 0  # attempts holding or waiting for a slot: the lane is dropped at 0


class Lanes:
    """A lane of slots per configuration, made when first used and dropped when unused."""

    def __init__(self) -> None:
        self._lanes: dict[Hashable, _Lane] = {}

    @asynccontextmanager
    async def slot(self, lane: Hashable, start_by: float) -> AsyncIterator[None]:
        """Hold one of the lane's slots, waiting until ``start_by`` (``time.monotonic()``) at
        most; raises :class:`NotStarted` when none came free by then."""
        entry = self._lanes.get(lane)
        if entry is None:
            entry = self._lanes[lane] = _Lane()
        entry.users += 1
        try:
            try:
                async with asyncio.timeout(max(0.0, start_by - time.monotonic())):
                    await entry.slots.acquire()
            except TimeoutError as late:
                raise NotStarted from late
            try:
                yield
            finally:
                entry.slots.release()
        finally:
            entry.users -= 1
            if not entry.users:
                del self._lanes[lane]
