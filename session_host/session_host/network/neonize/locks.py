"""The process-wide gate around calls into neonize's Go library.

The Go side of neonize 0.5.2 keeps its clients in plain Go maps (``clients``,
``StopSignal``, ``eventChannel``) that ``Neonize()`` (the blocking ``connect()``) and
``Stop()`` write without any lock, and that every other exported call reads. Two writers at
once, or a writer next to a reader, end in Go's fatal ``concurrent map writes`` /
``concurrent map read and map write``, which kills the whole process, every session with it.

:class:`GoCallGate` is a writer-preferring readers-writer lock:

- *exclusive*: held while a session's ``connect()`` starts (until the Go side has
  registered the client) and around every ``stop()``. Exclusive sections never overlap,
  which also staggers session starts.
- *shared*: held around every other call into the library (send, presence, read receipts,
  pair code, logout). Shared sections run side by side, never next to an exclusive one.

:data:`GO_GATE` is the one gate of the process; every neonize session uses it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class GoCallGate:
    """Readers-writer lock for calls into the Go library (see the module docstring)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    @property
    def held_exclusive(self) -> bool:
        """True while an exclusive section (connect-start or stop) is running."""
        with self._cond:
            return self._writer

    @property
    def readers(self) -> int:
        """Number of shared sections running now."""
        with self._cond:
            return self._readers

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Run alone: no other exclusive or shared section at the same time."""
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._writer or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Run beside other shared sections, never beside an exclusive one."""
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()


GO_GATE = GoCallGate()
"""The gate shared by every neonize session of the process."""
