"""When a host process asks to be replaced: its open descriptors and its memory against budgets.

neonize leaks what Python cannot free: its Go store pool, about two descriptors and 0.2 MB per
connect attempt (docs/neonize.md), so a process that runs long enough with devices that keep
failing would run out of either. A host process over ``SESSION_DESCRIPTOR_BUDGET`` of its
``RLIMIT_NOFILE``, or over ``SESSION_MEMORY_BUDGET_MB`` resident, stops cleanly, exactly as on
SIGTERM, and exits with ``RECYCLE_EXIT_CODE``; the supervisor starts a fresh worker (see
:mod:`session_host.workers`). The counts are the process's own, whatever allocated them;
:func:`recycle_reason` is the one place that decides.

A process near its memory budget takes no more devices (:func:`near_memory_budget`, read by
the ownership's ``full``): the sessions' own, legitimate memory then stops growing below the
budget, and only a leak reaches it, so a recycled worker does not fill up and recycle again.
"""

from __future__ import annotations

import os
import resource

_FD_DIRECTORIES = ("/proc/self/fd", "/dev/fd")
_STATM = "/proc/self/statm"
_MIB = 1024 * 1024
NEAR_BUDGET = 0.8
"""The share of the memory budget past which a process takes no more devices."""


def open_descriptors() -> int:
    """How many descriptors the process has open now (the listing's own one excluded)."""
    for directory in _FD_DIRECTORIES:
        try:
            return len(os.listdir(directory)) - 1
        except OSError:
            continue
    return 0


def resident_mb() -> float:
    """The process's resident memory now, in MiB (0 where ``/proc`` is missing)."""
    try:
        with open(_STATM) as statm:
            resident_pages = int(statm.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / _MIB


def descriptor_budget(fraction: float) -> int:
    """``fraction`` of the process's soft ``RLIMIT_NOFILE`` (of the hard one when the soft one
    is unlimited; 1,048,576 when both are)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = next((value for value in (soft, hard) if value != resource.RLIM_INFINITY), 1 << 20)
    return max(1, int(limit * fraction))


def near_memory_budget(budget_mb: float | None) -> bool:
    """Whether the process is past :data:`NEAR_BUDGET` of its memory budget (never without one)."""
    return budget_mb is not None and resident_mb() >= NEAR_BUDGET * budget_mb


def recycle_reason(descriptor_fraction: float, memory_budget_mb: float | None = None) -> str | None:
    """Why the process should be replaced now, or None while it is within its budgets."""
    count, budget = open_descriptors(), descriptor_budget(descriptor_fraction)
    if count > budget:
        return f"{count} open descriptors, over the budget of {budget}"
    if memory_budget_mb is not None and (resident := resident_mb()) > memory_budget_mb:
        return f"{resident:.0f} MiB resident, over the budget of {memory_budget_mb:.0f} MiB"
    return None
