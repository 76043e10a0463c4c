"""The group commit of the delivery log: which attempts are written together, and when.

The write is a stand-in that records its groups; the pause is set far beyond the tests'
deadlines where a test must not depend on it, so a write that happens proves it did not wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest

from gateway.webhooks.delivery import recorder
from gateway.webhooks.delivery.recorder import LOG_BATCH_EVENTS, Attempted, GroupCommit

T = TypeVar("T")
DEADLINE = 5.0  # seconds a test waits for what must happen


class Writes:
    """Stand-in for the log writer: records each group, leaves ``unlogged`` unlogged."""

    def __init__(self, unlogged: tuple[object, ...] = (), fail: bool = False) -> None:
        self.groups: list[list[Any]] = []
        self.unlogged, self.fail = unlogged, fail

    async def __call__(self, attempts: list[Attempted]) -> list[Attempted]:
        self.groups.append(attempts)
        if self.fail:
            raise RuntimeError("DynamoDB is unavailable")
        return [entry for entry in attempts if entry in self.unlogged]


def run(main: Awaitable[T]) -> T:
    """``main`` on a loop of its own, not the thread's current one (which other tests use)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(asyncio.wait_for(main, DEADLINE))
    finally:
        loop.close()


def attempts(count: int) -> list[Any]:
    return [object() for _ in range(count)]  # stand for Attempted: only their identity counts


@pytest.fixture
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recorder, "LOG_FLUSH_AFTER_SECONDS", 3600.0)


@pytest.mark.usefixtures("no_pause")
def test_full_writes_go_out_while_other_records_are_still_running() -> None:
    # Given a batch with two full writes' worth of ended attempts, one more, and 5 still running
    writes = Writes()
    commit = GroupCommit(2 * LOG_BATCH_EVENTS + 6, writes)
    ended = attempts(2 * LOG_BATCH_EVENTS + 1)

    async def main() -> list[bool]:
        logging = [asyncio.create_task(commit.log(entry)) for entry in ended]
        # When the two full groups are written, the last one waits for more (5 still running)
        done = await asyncio.gather(*logging[: 2 * LOG_BATCH_EVENTS])
        assert not logging[-1].done()
        assert [len(group) for group in writes.groups] == [LOG_BATCH_EVENTS, LOG_BATCH_EVENTS]
        # Then the last records ending without attempts (dropped) let it go at once
        for _ in range(5):
            commit.withdraw()
        return [*done, await logging[-1]]

    assert run(main()) == [True] * len(ended)
    n = LOG_BATCH_EVENTS
    assert writes.groups == [ended[:n], ended[n : 2 * n], ended[2 * n :]]


def test_after_a_pause_the_ended_attempts_are_written_without_the_slow_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a short pause and a batch of 10 records, 3 of which ended
    monkeypatch.setattr(recorder, "LOG_FLUSH_AFTER_SECONDS", 0.01)
    writes = Writes()
    commit = GroupCommit(10, writes)
    ended = attempts(3)

    # When nothing else ends, they are written (the 7 others never end here)
    async def main() -> list[bool]:
        return list(await asyncio.gather(*(commit.log(entry) for entry in ended)))

    assert run(main()) == [True, True, True]
    assert writes.groups == [ended]


@pytest.mark.usefixtures("no_pause")
def test_attempts_not_logged_are_told_so_and_a_failed_write_raises_in_each() -> None:
    # Given a write that leaves one attempt unlogged
    ended = attempts(3)
    commit = GroupCommit(3, Writes(unlogged=(ended[1],)))

    async def main(commit: GroupCommit, ended: list[Any]) -> list[Any]:
        return list(await asyncio.gather(*(commit.log(e) for e in ended), return_exceptions=True))

    # Then only that one is reported as not logged
    assert run(main(commit, ended)) == [True, False, True]

    # And when the write fails outright, every attempt of the group gets the error
    results = run(main(GroupCommit(2, Writes(fail=True)), attempts(2)))
    assert [type(result) for result in results] == [RuntimeError, RuntimeError]
