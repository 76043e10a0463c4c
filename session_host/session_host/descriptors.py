"""When a host process asks to be replaced: its open file descriptors against a budget.

neonize leaks descriptors that Python cannot close (about two per connect attempt, its Go
store pool), so a process that runs long enough with devices that keep failing would run out.
A host process whose count passes ``SESSION_DESCRIPTOR_BUDGET`` of its ``RLIMIT_NOFILE``
stops cleanly, exactly as on SIGTERM, and exits with ``RECYCLE_EXIT_CODE``; the supervisor
starts a fresh worker (see :mod:`session_host.supervisor`). The count is the process's own,
whatever opened the descriptors; :func:`recycle_reason` is the one place that decides.
"""

from __future__ import annotations

import os
import resource

_FD_DIRECTORIES = ("/proc/self/fd", "/dev/fd")


def open_descriptors() -> int:
    """How many descriptors the process has open now (the listing's own one excluded)."""
    for directory in _FD_DIRECTORIES:
        try:
            return len(os.listdir(directory)) - 1
        except OSError:
            continue
    return 0


def descriptor_budget(fraction: float) -> int:
    """``fraction`` of the process's soft ``RLIMIT_NOFILE`` (of the hard one when the soft one
    is unlimited; 1,048,576 when both are)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = next((value for value in (soft, hard) if value != resource.RLIM_INFINITY), 1 << 20)
    return max(1, int(limit * fraction))


def recycle_reason(fraction: float) -> str | None:
    """Why the process should be replaced now, or None while it is within its budget."""
    count, budget = open_descriptors(), descriptor_budget(fraction)
    if count > budget:
        return f"{count} open descriptors, over the budget of {budget}"
    return None
