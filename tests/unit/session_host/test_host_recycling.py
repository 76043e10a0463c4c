"""A host process's descriptors and memory against their budgets (the recycling rule)."""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator

import pytest

from session_host import recycling


@pytest.fixture
def opened() -> Iterator[list[int]]:
    fds: list[int] = []
    yield fds
    for fd in fds:
        os.close(fd)


def test_the_count_follows_what_the_process_opens_whoever_opens_it(opened: list[int]) -> None:
    # Given the count now
    before = recycling.open_descriptors()

    # When ten descriptors are opened (as a native library would, unseen by Python objects)
    opened.extend(os.open(os.devnull, os.O_RDONLY) for _ in range(10))

    # Then the count is ten higher
    assert recycling.open_descriptors() == before + 10


def test_the_budget_is_a_fraction_of_the_soft_descriptor_limit() -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert recycling.descriptor_budget(0.5) == soft // 2
    assert recycling.descriptor_budget(1.0) == soft


def test_a_process_over_its_budget_has_a_reason_to_be_replaced(opened: list[int]) -> None:
    # Given a budget just above what the process holds / Then no reason
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    fraction = (recycling.open_descriptors() + 5) / soft
    assert recycling.recycle_reason(fraction) is None

    # When it opens more than that
    opened.extend(os.open(os.devnull, os.O_RDONLY) for _ in range(10))

    # Then it has a reason, which names the count and the budget
    reason = recycling.recycle_reason(fraction)
    assert reason is not None
    assert "open descriptors, over the budget of" in reason


def test_a_process_over_its_memory_budget_has_a_reason_and_near_it_takes_no_more() -> None:
    # Given the process's resident memory now
    resident = recycling.resident_mb()
    assert resident > 10  # an interpreter with pytest loaded

    # When its budget is well above it / Then nothing to do
    assert recycling.recycle_reason(1.0, memory_budget_mb=resident * 2) is None
    assert not recycling.near_memory_budget(resident * 2)
    assert not recycling.near_memory_budget(None)

    # When the budget is just above it / Then it takes no more devices, but is not replaced yet
    assert recycling.near_memory_budget(resident * 1.1)
    assert recycling.recycle_reason(1.0, memory_budget_mb=resident * 1.1) is None

    # When the budget is below it / Then it has a reason, which names both figures
    reason = recycling.recycle_reason(1.0, memory_budget_mb=resident / 2)
    assert reason is not None
    assert "MiB resident, over the budget of" in reason
