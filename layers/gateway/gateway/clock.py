""" "Now" for the sending policy (UTC days, warm-up age, pauses) and the send dispatcher's due
times: the one owner of that clock.

Production reads the real clock. The simulated stack may move it (``GET/PUT
/_simulator/clock``), so tests cross a UTC midnight without waiting a day: only once the
simulated network's control API is served in the process (:meth:`Clock.allow_setting`), the
clock is an offset from the real one. Whoever waits for a moment of this clock (the send
dispatchers) subscribes to its changes and looks again when it moves.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable


class ClockNotSettable(RuntimeError):
    """The clock was asked to move outside the simulated stack."""


class ClockListener:
    """Told when the clock moves."""

    def __init__(self, changed: Callable[[], None]) -> None:
        self.changed = changed


class Clock:
    """The real time, plus an offset the simulated stack may set."""

    def __init__(self) -> None:
        self._offset = 0.0
        self._settable = False
        self._listeners: weakref.WeakSet[ClockListener] = weakref.WeakSet()

    def now(self) -> float:
        """Epoch seconds."""
        return time.time() + self._offset

    def allow_setting(self) -> None:
        """The simulated network's control API serves this process: it may move the clock."""
        self._settable = True

    def set(self, now: float) -> None:
        """Make :meth:`now` answer ``now`` from this moment on (and run from there)."""
        if not self._settable:
            raise ClockNotSettable("only the simulated stack's clock can be set")
        self._offset = now - time.time()
        for listener in list(self._listeners):
            listener.changed()

    def advance(self, seconds: float) -> None:
        self.set(self.now() + seconds)

    def reset(self) -> None:
        """Back to the real time."""
        self.set(time.time())

    def subscribe(self, listener: ClockListener) -> None:
        """Call ``listener.changed()`` (from the thread that moves the clock) at each change;
        held weakly, so a listener that is gone needs no unsubscribe."""
        self._listeners.add(listener)


CLOCK = Clock()
"""The process's clock."""


def now() -> float:
    """:meth:`Clock.now` of the process's clock."""
    return CLOCK.now()
