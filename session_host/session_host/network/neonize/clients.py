"""neonize clients kept alive, one per Go-side key, and the thread that runs each one.

Two traps of neonize 0.5.2 shape this module:

- A ``NewClient`` registers a ``weakref.finalize`` that calls the Go ``Stop(uuid)`` when the
  Python object is collected, outside any lock. A discarded client object therefore stops
  whatever session *currently* runs under the same key (``jid.User`` once paired, the
  database name before), and writes the Go maps unguarded. :class:`ClientRegistry` keeps
  every client object for the life of the process and hands the same object back for the
  same key, so no client is ever collected while the process runs.
- The sync ``connect()`` blocks until ``stop()``. :class:`ClientRunner` runs it on a
  dedicated thread, starts it inside the process-wide gate's exclusive section (until the
  Go side has registered the client, see ``locks.py``) and stops it inside it too.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from neonize.client import NewClient
from neonize.proto.Neonize_pb2 import JID

from ..port import NetworkError, NetworkErrorKind
from .locks import GoCallGate

logger = logging.getLogger(__name__)


class ClientRegistry:
    """Every ``NewClient`` of the process, by Go-side key (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: dict[str, NewClient] = {}

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
            raise NetworkError(
                NetworkErrorKind.UNSUPPORTED,
                f"account {key} is already linked to another device in this session host",
            )
        client.jid = jid  # same account, possibly a new device number after re-pairing
        return client


CLIENTS = ClientRegistry()
"""The registry of the process."""


class ClientRunner:
    """One run of a client's blocking ``connect()`` on its own thread.

    ``on_exit(runner, error)`` is called on that thread when ``connect()`` returns or raises;
    :attr:`stopping` tells whether :meth:`stop` asked for it.
    """

    def __init__(
        self,
        client: NewClient,
        gate: GoCallGate,
        *,
        name: str,
        on_exit: Callable[[ClientRunner, BaseException | None], None],
    ) -> None:
        self.client = client
        self._gate = gate
        self._on_exit = on_exit
        self._started = threading.Event()
        self._done = threading.Event()
        self._stop_lock = threading.Lock()
        self._stop_sent = False
        self.stopping = False  # the end of this run is expected: handlers stay quiet
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self._done.is_set()

    def mark_started(self) -> None:
        """The Go side answered (QR, login status or an event): its client maps are written."""
        self._started.set()

    def start(self, hold: float) -> None:
        """Start ``connect()``; hold the gate exclusively until the Go side answered or ``hold`` s."""
        with self._gate.exclusive():
            self._thread.start()
            self._started.wait(hold)

    def stop(self, timeout: float) -> bool:
        """Stop the client (inside the exclusive gate); True once ``connect()`` has returned."""
        with self._stop_lock:
            self.stopping = True
            if self._thread.ident is None:  # never started: nothing runs on the Go side
                return True
            if not self._stop_sent:
                self._stop_sent = True
                with self._gate.exclusive():
                    self.client.stop()
        returned = self._done.wait(timeout)
        if returned:
            self._thread.join(timeout)
        return returned

    def _run(self) -> None:
        error: BaseException | None = None
        try:
            self.client.connect()
        except BaseException as exc:  # every failure is reported through on_exit
            error = exc
        finally:
            self._started.set()
            self._done.set()
        try:
            self._on_exit(self, error)
        except Exception:
            logger.exception("neonize runner %s: exit handler failed", self._thread.name)
