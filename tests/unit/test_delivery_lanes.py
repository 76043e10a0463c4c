"""A configuration's attempts at once in one process: a full batch's worth, the rest waiting
for their own configuration only, and giving up unstarted when their invocation's time is short."""

from __future__ import annotations

import asyncio
import time

import pytest
from waiting import PROMPTLY

from gateway.webhooks.delivery.constants import ATTEMPTS_PER_CONFIGURATION
from gateway.webhooks.delivery.transport import Lanes, NotStarted


async def hold(lanes: Lanes, lane: str, release: asyncio.Event, running: list[str], start_by: float) -> None:
    async with lanes.slot(lane, start_by):
        running.append(lane)
        await release.wait()


async def fill(lanes: Lanes, release: asyncio.Event, running: list[str]) -> list[asyncio.Task[None]]:
    """A full batch's worth of attempts of configuration "a", holding their slots until released."""
    hanging = [
        asyncio.create_task(hold(lanes, "a", release, running, time.monotonic() + 60))
        for _ in range(ATTEMPTS_PER_CONFIGURATION)
    ]
    await asyncio.sleep(0)
    return hanging


def test_one_configuration_waits_for_its_own_attempts_only() -> None:
    async def scenario() -> None:
        # Given a configuration with a full batch's worth of attempts that hang
        lanes, release, running = Lanes(), asyncio.Event(), []
        hanging = await fill(lanes, release, running)
        assert running == ["a"] * ATTEMPTS_PER_CONFIGURATION

        # When another attempt of it, and one of another configuration, come
        queued = asyncio.create_task(hold(lanes, "a", release, running, time.monotonic() + 60))
        other = asyncio.Event()
        async with lanes.slot("b", time.monotonic()):
            other.set()

        # Then the other configuration's started at once; the first one's next waits its turn
        assert other.is_set()
        assert not queued.done()
        assert running.count("a") == ATTEMPTS_PER_CONFIGURATION
        release.set()
        await asyncio.gather(*hanging, queued)
        assert running.count("a") == ATTEMPTS_PER_CONFIGURATION + 1

    asyncio.run(scenario())


def test_an_attempt_that_cannot_start_in_time_gives_up_unstarted() -> None:
    async def scenario() -> None:
        lanes, release, running = Lanes(), asyncio.Event(), []
        hanging = await fill(lanes, release, running)
        began = time.monotonic()
        with pytest.raises(NotStarted):
            async with lanes.slot("a", began + 0.2):
                running.append("late")
        assert 0.15 <= time.monotonic() - began < PROMPTLY
        assert "late" not in running
        release.set()
        await asyncio.gather(*hanging)
        async with lanes.slot("a", time.monotonic()):  # all slots free again
            pass

    asyncio.run(scenario())
