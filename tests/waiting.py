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

PROMPTLY = 3.5
"""Seconds a step the code must take "at once" (or at its deadline) may be seen to take: on a
loaded 2-core CI machine a thread can wait seconds for the CPU (a 1 s cut was once seen at
2.7 s). A test that bounds a step by it makes the wrong behaviour take far longer, 8 s or more."""


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
