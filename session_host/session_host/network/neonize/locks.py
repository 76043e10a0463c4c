"""The process-wide gate around calls into neonize's Go library.

The Go side of neonize 0.5.2 keeps its clients in plain Go maps (``clients``,
``StopSignal``, ``eventChannel``). ``Neonize()`` (the blocking ``connect()``) writes all three
before it dials, ``Stop()`` deletes them after its ``Disconnect()``, and every other exported
call reads ``clients`` as its first statement, without any lock. A map write next to another
write or a read ends in Go's fatal ``concurrent map writes`` / ``concurrent map read and map
write``, which kills the whole process, every session with it.

Go only notices the conflict while the map operation itself runs, so the gate guards those
instants, never a network wait:

- *exclusive*: a session start (from the start of ``connect()`` until the Go side has
  registered the client: at most ``start_hold``, measured in ``docs``/tests at a few
  milliseconds) and ``Stop()`` (only called once the client's dial is over, when its
  ``Disconnect()`` does not wait for the network: see ``clients.py``).
- *shared*: every other call, one ticket per call into the library
  (:class:`~.clients.GatedClient`). Its map read is the call's first statement, so a shared
  ticket counts only for :attr:`GoCallGate.read_lease` seconds: a call that then waits on the
  network (a send, a download) no longer holds anyone back.

Every ticket has a lease: past it, the gate treats the ticket as released (and logs it for an
exclusive one, which should never run that long). No holder can stall the process.

The gate is *phase-fair*: writers queue first come first served; a reader that arrives while a
writer holds or waits is let in as soon as that one writer phase ends, before any later writer.
A call of one device therefore waits at most for one short exclusive hold (plus the lease of
readers already inside), however many sessions queue to start or stop.

:data:`GO_GATE` is the one gate of the process; every neonize session uses it.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

logger = logging.getLogger(__name__)

READ_LEASE = 0.5
"""How long a shared ticket counts (seconds). The map read is a Go call's first statement;
some neonize methods do Python work first (a thumbnail before an upload), hence the margin.
A call of another device waits at most this plus one exclusive hold (0.1 s)."""


class Ticket:
    """One admission through the gate; :meth:`release` may be called from any thread, twice."""

    __slots__ = ("_gate", "_released", "acquired_at", "exclusive", "lease", "overdue_warning")

    def __init__(
        self, gate: GoCallGate, exclusive: bool, lease: float | None, *, overdue_warning: bool = False
    ) -> None:
        self._gate = gate
        self.exclusive = exclusive
        self.lease = lease
        self.overdue_warning = overdue_warning
        self.acquired_at = time.monotonic()
        self._released = False

    def expires_in(self, now: float) -> float | None:
        """Seconds until the lease runs out (<= 0: expired), None without a lease."""
        return None if self.lease is None else self.acquired_at + self.lease - now

    def release(self) -> None:
        self._gate._release(self)


class GoCallGate:
    """Phase-fair readers-writer gate with leases (see the module docstring)."""

    def __init__(self, *, read_lease: float = READ_LEASE) -> None:
        self.read_lease = read_lease
        self._cond = threading.Condition(threading.Lock())
        self._readers: set[Ticket] = set()
        self._writer: Ticket | None = None
        self._writers: deque[int] = deque()  # waiting writers, first come first served
        self._numbers = itertools.count()
        self._phase = 0  # writer phases completed
        self._waiting_readers: dict[int, int] = {}  # phase at arrival -> readers waiting

    # --- introspection (tests, logs) ----------------------------------------------------

    @property
    def held_exclusive(self) -> bool:
        """True while an exclusive section (a start or a stop) holds the gate."""
        with self._cond:
            return self._live_writer(time.monotonic()) is not None

    @property
    def readers(self) -> int:
        """Shared tickets counting now."""
        with self._cond:
            return len(self._live_readers(time.monotonic()))

    # --- acquisition --------------------------------------------------------------------

    def acquire_exclusive(self, lease: float | None, *, overdue_warning: bool = False) -> Ticket:
        """Wait for the gate alone; the ticket counts until released or ``lease`` seconds
        (``overdue_warning``: log when the lease runs out, the holder should have been done)."""
        with self._cond:
            number = next(self._numbers)
            self._writers.append(number)
            try:
                while True:
                    now = time.monotonic()
                    wait = self._writer_blocked(number, now)
                    if wait == 0.0:
                        break
                    self._cond.wait(wait)
            finally:
                self._writers.remove(number)
            ticket = Ticket(self, True, lease, overdue_warning=overdue_warning)
            self._writer = ticket
            return ticket

    def acquire_shared(self) -> Ticket:
        """Wait for the current writer phase (if any) to end; the ticket counts ``read_lease``."""
        with self._cond:
            arrival = self._phase
            if self._live_writer(time.monotonic()) is None and not self._writers:
                return self._admit_reader()
            self._waiting_readers[arrival] = self._waiting_readers.get(arrival, 0) + 1
            try:
                while True:
                    now = time.monotonic()
                    writer = self._live_writer(now)
                    if writer is None and (not self._writers or self._phase > arrival):
                        break
                    self._cond.wait(_timeout(writer, now))
            finally:
                left = self._waiting_readers[arrival] - 1
                if left:
                    self._waiting_readers[arrival] = left
                else:
                    del self._waiting_readers[arrival]
                self._cond.notify_all()
            return self._admit_reader()

    @contextmanager
    def exclusive(self, lease: float | None = None, *, overdue_warning: bool = False) -> Iterator[Ticket]:
        """Run alone (see :meth:`acquire_exclusive`)."""
        ticket = self.acquire_exclusive(lease, overdue_warning=overdue_warning)
        try:
            yield ticket
        finally:
            ticket.release()

    @contextmanager
    def shared(self) -> Iterator[Ticket]:
        """Run beside other shared sections, never beside an exclusive one."""
        ticket = self.acquire_shared()
        try:
            yield ticket
        finally:
            ticket.release()

    # --- internals (under self._cond) ---------------------------------------------------

    def _admit_reader(self) -> Ticket:
        ticket = Ticket(self, False, self.read_lease)
        self._readers.add(ticket)
        return ticket

    def _live_writer(self, now: float) -> Ticket | None:
        writer = self._writer
        if writer is None:
            return None
        left = writer.expires_in(now)
        if left is not None and left <= 0:
            if writer.overdue_warning:
                logger.warning("neonize gate: an exclusive section outlived its %g s lease", writer.lease)
            self._end_writer_phase()
            return None
        return writer

    def _live_readers(self, now: float) -> list[Ticket]:
        expired = [t for t in self._readers if (t.expires_in(now) or 0.0) <= 0.0]
        self._readers.difference_update(expired)
        return list(self._readers)

    def _writer_blocked(self, number: int, now: float) -> float:
        """0.0 when writer ``number`` may go now, else how long to wait before checking again."""
        writer = self._live_writer(now)
        if writer is not None:
            return _timeout(writer, now)
        if self._writers[0] != number:
            return 1.0  # woken when the writer before it is done
        if any(phase < self._phase for phase in self._waiting_readers):
            return 1.0  # readers of the phase that just ended go first (phase-fair)
        readers = self._live_readers(now)
        if readers:
            return max(0.001, min(t.expires_in(now) or 0.0 for t in readers))
        return 0.0

    def _end_writer_phase(self) -> None:
        self._writer = None
        self._phase += 1
        self._cond.notify_all()

    def _release(self, ticket: Ticket) -> None:
        with self._cond:
            if ticket._released:
                return
            ticket._released = True
            if ticket.exclusive:
                if self._writer is ticket:
                    self._end_writer_phase()
            elif ticket in self._readers:
                self._readers.discard(ticket)
                if not self._readers:
                    self._cond.notify_all()


def _timeout(writer: Ticket | None, now: float) -> float:
    """How long to wait on the condition: until a writer's lease runs out, else a while."""
    if writer is None:
        return 1.0
    left = writer.expires_in(now)
    return 1.0 if left is None else max(0.001, left)


GO_GATE = GoCallGate()
"""The gate shared by every neonize session of the process."""
