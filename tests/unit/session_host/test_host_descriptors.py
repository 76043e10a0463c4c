"""A host process's descriptor count against its budget (the recycling rule)."""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator

import pytest

from session_host import descriptors


@pytest.fixture
def opened() -> Iterator[list[int]]:
    fds: list[int] = []
    yield fds
    for fd in fds:
        os.close(fd)


def test_the_count_follows_what_the_process_opens_whoever_opens_it(opened: list[int]) -> None:
    # Given the count now
    before = descriptors.open_descriptors()

    # When ten descriptors are opened (as a native library would, unseen by Python objects)
    opened.extend(os.open(os.devnull, os.O_RDONLY) for _ in range(10))

    # Then the count is ten higher
    assert descriptors.open_descriptors() == before + 10


def test_the_budget_is_a_fraction_of_the_soft_descriptor_limit() -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert descriptors.descriptor_budget(0.5) == soft // 2
    assert descriptors.descriptor_budget(1.0) == soft


def test_a_process_over_its_budget_has_a_reason_to_be_replaced(opened: list[int]) -> None:
    # Given a budget just above what the process holds / Then no reason
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    fraction = (descriptors.open_descriptors() + 5) / soft
    assert descriptors.recycle_reason(fraction) is None

    # When it opens more than that
    opened.extend(os.open(os.devnull, os.O_RDONLY) for _ in range(10))

    # Then it has a reason, which names the count and the budget
    reason = descriptors.recycle_reason(fraction)
    assert reason is not None
    assert "open descriptors, over the budget of" in reason
