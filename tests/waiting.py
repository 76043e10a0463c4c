"""Waiting in tests: on a condition, with a deadline, never for a fixed time.

A test that sleeps "long enough" for something to have happened fails when the machine is
slow and wastes time when it is fast. :func:`wait_until` polls the condition instead and
fails, saying what it waited for, only once the deadline has passed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    check: Callable[[], T], timeout: float = 15.0, *, interval: float = 0.05, what: str = "condition"
) -> T:
    """The first truthy result of ``check()``, polled every ``interval`` seconds; an
    AssertionError naming ``what`` when none came within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"{what} not reached within {timeout} s"
        time.sleep(interval)
