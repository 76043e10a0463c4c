"""neonize clients kept alive, one per Go-side key, and the runs of their blocking ``connect()``.

Traps of neonize 0.5.2 that shape this module (measured on the real library, offline):

- A ``NewClient`` registers a ``weakref.finalize`` that calls the Go ``Stop(uuid)`` when the
  Python object is collected, outside any lock. A discarded client object therefore stops
  whatever session *currently* runs under the same key (``jid.User`` once paired, the
  database name before), and writes the Go maps unguarded. :class:`ClientRegistry` keeps
  every client object for the life of the process and hands the same object back for the
  same key, so no client is ever collected while the process runs.
- ``connect()`` blocks its thread for the whole session; it registers the client in the Go
  maps within a few milliseconds (bench/README.md, "Figures the code's choices rest on"), then
  dials. A failed dial makes it return (raise) at once when refused; over a silent network
  it returns after whatsmeow's 60 s dial deadline. ``stop()`` and ``disconnect()`` both wait
  for a dial in progress (up to that deadline): nobody may wait for them, and no lock may be held
  around them.

:class:`ClientRunner` is one run. It starts ``connect()`` on its own thread inside the
process-wide gate's exclusive section, for at most ``start_hold`` seconds (ended early by the
first answer of the Go side). Ending a run (:meth:`ClientRunner.retire`) returns at once and
never calls into the library while the run's first dial is under way: the run is stopped
once that dial is over, by the run's own thread when ``connect()`` returns (a failed dial), or
at the Go side's first answer (a QR code, an event). Stopping is ``disconnect()`` (a shared
ticket of the gate, leased: it waits out a reconnect dial whatsmeow may have started after a
drop without holding anyone back, and leaves ``Stop`` nothing to wait for), then ``stop()``
in a short exclusive section (the map deletes), then waiting for ``connect()`` to return.
The next run of the same device starts only once the previous one is
:attr:`~ClientRunner.finished` (stopped and ``connect()`` returned): two runs of one Go key
never overlap, and only that device waits.

:func:`call_with_deadline` runs any other library call on a thread of its own, so a caller
gets ``TIMEOUT`` after its deadline while the call finishes by itself, and no shared
executor can be filled by stuck calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from neonize.client import NewClient, ProxySettings
from neonize.proto.Neonize_pb2 import JID

from gateway.failures.kinds import ErrorKind

from ..port import NetworkError
from .catalog import unsupported
from .locks import GoCallGate, Ticket

logger = logging.getLogger(__name__)
T = TypeVar("T")

STOP_HOLD = 0.5
"""Longest exclusive hold of a ``stop()`` (seconds); it runs after ``disconnect()`` returned,
so its own ``Disconnect`` has nothing left to wait for and it only deletes map entries."""


class ClientRegistry:
    """Every ``NewClient`` of the process, by Go-side key (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: dict[str, NewClient] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._clients)

    def client_for(self, db_name: str, jid: JID | None) -> NewClient:
        """The client for this database and account, created once and then reused.

        Raises
        ------
        NetworkError
            ``UNSUPPORTED`` when another device of this process already runs the same
            account: neonize keys clients by the account's user part, so two devices linked
            to one phone number cannot run in one process.
        """
        key = jid.User if jid is not None else db_name
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                client = NewClient(db_name, jid=jid)
                self._clients[key] = client
                return client
        if client.name != db_name:
            raise unsupported("connect.same_account", f"account {key}, already linked to another device here")
        client.jid = jid  # same account, possibly a new device number after re-pairing
        return client


CLIENTS = ClientRegistry()
"""The registry of the process."""


class ClientRunner:
    """One run of a client's blocking ``connect()`` (see the module docstring).

    ``on_exit(runner, error)`` is called on the run's thread when ``connect()`` returns or
    raises; :attr:`stopping` tells whether :meth:`retire` asked for it (handlers stay quiet).
    """

    def __init__(
        self,
        client: NewClient,
        gate: GoCallGate,
        *,
        name: str,
        on_exit: Callable[[ClientRunner, BaseException | None], None],
        before_connect: Callable[[], None] | None = None,
        after: ClientRunner | None = None,
        proxy_url: str | None = None,
        stop_join: float = 15.0,
    ) -> None:
        self.client = client
        self.name = name
        self._gate = gate
        self._on_exit = on_exit
        self._before_connect = before_connect
        self._after = after
        self._proxy_url = proxy_url
        self._stop_join = stop_join
        self._lock = threading.Lock()
        self._answered = threading.Event()  # the Go side answered: registration done, dial over
        self._returned = threading.Event()  # connect() returned (or never started)
        self.finished = threading.Event()  # nothing of this run is left on the Go side
        self._hold = 0.0
        self._start_ticket: Ticket | None = None
        self._launched = False
        self._connect_started = False
        self._retired = False
        self._stop_claimed = False
        self.stopping = False  # the end of this run is expected: handlers stay quiet
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    @property
    def alive(self) -> bool:
        """The run is under way (waiting to start, dialing or running) and not retired."""
        return self._launched and not self._retired and not self._returned.is_set()

    def mark_started(self) -> None:
        """The Go side answered (QR, login status or an event): its maps are written, the dial
        over. Ends the start hold early; a run retired while it dialed is stopped now."""
        self._answered.set()
        ticket = self._start_ticket
        if ticket is not None:
            ticket.release()
        if self._claim_stop():
            self._stop_thread()

    def launch(self, hold: float) -> None:
        """Start the run in the background; returns at once.

        The run first waits for the previous run of the same device to be finished, then
        starts ``connect()`` inside the exclusive gate, held until the Go side answered or
        ``hold`` seconds (the measured registration time is a few milliseconds).
        """
        self._hold = hold
        self._launched = True
        self._thread.start()

    def retire(self) -> None:
        """End the run without waiting for anything; :attr:`finished` is set once it is over.

        A run whose dial is still under way is stopped once the dial ends, by the run's own
        thread when ``connect()`` returns (or at the Go side's first answer); a run the network
        answered is stopped now, on a short-lived thread. Nobody waits for either.
        """
        with self._lock:
            self.stopping = True
            if self._retired:
                return
            self._retired = True
        if not self._launched:
            self._returned.set()
            self.finished.set()
        elif self._claim_stop():
            self._stop_thread()
        # a run still waiting for its predecessor or the gate sees _retired and ends by itself

    def _claim_stop(self) -> bool:
        """True for the one caller that must stop this retired run now that its dial is over."""
        with self._lock:
            due = (
                self._retired
                and self._connect_started
                and not self._stop_claimed
                and (self._answered.is_set() or self._returned.is_set())
            )
            if due:
                self._stop_claimed = True
            return due

    def _stop_thread(self) -> None:
        threading.Thread(target=self._stop, name=f"{self.name}-stop", daemon=True).start()

    # --- threads ------------------------------------------------------------------------

    def _run(self) -> None:
        if self._after is not None:
            self._after.finished.wait()  # only this device waits for its previous run
        if self._before_connect is not None and not self._retired:
            try:
                self._before_connect()  # handlers bound now: no earlier run of the client reaches them
            except Exception as exc:
                self._returned.set()
                self.finished.set()
                self._report_exit(exc)
                return
        ticket = None if self._retired else self._gate.acquire_exclusive(self._hold)
        with self._lock:
            if self._retired:
                if ticket is not None:
                    ticket.release()
                self._returned.set()
                self.finished.set()
                return
            assert ticket is not None  # acquired unless retired, and retiring is for good
            self._start_ticket = ticket
            self._connect_started = True
        error: BaseException | None = None
        try:
            if self._proxy_url:
                self.client.connect(ProxySettings(proxy_address=self._proxy_url))
            else:
                self.client.connect()
        except BaseException as exc:  # every failure is reported through on_exit
            error = exc
        finally:
            self._returned.set()
            self._answered.set()
            ticket.release()
        if self._claim_stop():
            self._stop()  # retired while it dialed: the dial is over, stop it on this thread
        self._report_exit(error)

    def _report_exit(self, error: BaseException | None) -> None:
        try:
            self._on_exit(self, error)
        except Exception:
            logger.exception("neonize run %s: exit handler failed", self.name)

    def _stop(self) -> None:
        """Disconnect (waits out a reconnect dial whatsmeow may have started after a drop),
        then stop in a short exclusive section, then wait for ``connect()`` to return."""
        try:
            if not self._returned.is_set():
                with self._gate.shared():  # leased: only the map read at the call's start counts
                    self.client.disconnect()
            with self._gate.exclusive(STOP_HOLD, overdue_warning=True):
                self.client.stop()
        except Exception:
            logger.exception("neonize run %s: stopping failed", self.name)
        # The next run of this Go key starts only once connect() has returned: a Neonize()
        # still running (a pairing loop waits for its QR channel to close) would otherwise call
        # the new run's handlers and read the new run's map entries.
        if not self._returned.wait(self._stop_join):
            logger.error(
                "neonize run %s: connect() still running %g s after stop()", self.name, self._stop_join
            )
            self._returned.wait()
        self.finished.set()


_GATED_STORES = frozenset({"contact", "chat_settings"})
"""Attributes of ``NewClient`` holding stores whose methods call the Go side."""


class GatedClient:
    """A client whose every method call goes through the gate on a ticket of its own.

    The Go map read is each exported call's first statement, and a shared ticket counts for
    the gate's read lease only; an operation that makes several calls (upload, then send)
    therefore takes a fresh ticket for each, right before it. ``check`` runs inside each
    ticket before the call (the session must still be connected on the same run) and raises
    to refuse it. The client's stores (``contact``, ``chat_settings``: their calls abort the
    process on a client that is not connected) are gated alike; other attributes that are not
    methods are the client's own.
    """

    __slots__ = ("_check", "_client", "_gate")

    def __init__(self, client: object, gate: GoCallGate, check: Callable[[], object]) -> None:
        self._client = client
        self._gate = gate
        self._check = check

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._client, name)
        if name in _GATED_STORES:
            return GatedClient(value, self._gate, self._check)
        if name.startswith("_") or not callable(value) or isinstance(value, type):
            return value
        gate, check = self._gate, self._check

        def gated(*args: Any, **kwargs: Any) -> Any:
            with gate.shared():
                check()
                return value(*args, **kwargs)

        return gated


async def call_with_deadline(func: Callable[[], T], deadline: float, operation: str) -> T:
    """Run ``func`` on a thread of its own; ``TIMEOUT`` after ``deadline`` s (the call finishes alone)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            result = func()
        except BaseException as exc:
            _post(loop, settle, None, exc)
        else:
            _post(loop, settle, result, None)

    threading.Thread(target=work, name=f"neonize-call-{operation}", daemon=True).start()
    try:
        return await asyncio.wait_for(asyncio.shield(future), deadline)
    except TimeoutError as exc:
        raise NetworkError(
            ErrorKind.TIMEOUT, f"{operation}: no answer from the network library within {deadline:g} s"
        ) from exc


def _post(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: Any) -> None:
    with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: nobody waits any more
        loop.call_soon_threadsafe(callback, *args)
