"""The neonize adapter: :class:`NeonizePort` and its :class:`NeonizeSession`.

Threading model: the sync ``NewClient``, one dedicated thread per session
---------------------------------------------------------------------------
Each session runs neonize's blocking ``connect()`` on its own daemon thread
(:class:`~.clients.ClientRunner`); neonize reports QR codes and events on that run, one at a
time. Handlers (``handlers.py``) update the session state and pass each event to the asyncio
loop with ``asyncio.run_coroutine_threadsafe``, waiting for ``sink(event)`` to finish: events
reach the sink in order, and a slow sink slows the Go side (bounded by whatsmeow's buffer)
instead of filling an unbounded queue. Every other library call (send, presence, receipts,
pair code, logout) runs on a thread of its own with a deadline
(:func:`~.clients.call_with_deadline`), through the process-wide gate (``locks.py``).

Lifecycle: ``connect()`` starts one attempt and returns at once (the run starts in the
background, after the device's previous run is over). Every ending (``disconnect``,
``logout``, ``close``, a failure the network reports, ``connect()`` returning by itself)
*retires* the run: it returns at once and the client is stopped in the background once its
dial is over (``clients.py``). A failed attempt emits one ``connection.failure``
``{device_id, reason, message, permanent}`` and leaves the session idle; the next
``connect()`` starts a new attempt. A device shows ``pairing`` only once a QR code arrived.

The async twin (``neonize.aioze``) was not chosen: all its clients must share one loop, each
session pins one default-executor thread for its life (the executor must be sized above the
session count or the host starves), and exceptions in its handlers are lost silently. The
sync client gives the same one-thread-per-session cost with threads this adapter owns,
names and stops, and handler failures it can log.

Traps of neonize 0.5.2 handled here (see ``notes/neonize.md``): one SQLite file per device
plus the account JID in a sidecar (``store.py``); every handler registered before
``connect()``; connect-start and ``stop()`` serialised process-wide and other calls kept
apart from them (``locks.py``); calls that abort the process on a client that is not
connected are only made after checking the session state (:meth:`NeonizeSession._call`);
client objects kept alive, one per Go-side key (``clients.py``); QR rotation, QR timeout
(stop and report), pair code only after the first QR; endings ``disconnect()`` then
``stop()`` the client so ``connect()`` returns; whatsmeow's own reconnects after a drop
surface as ``device.disconnected`` then ``device.connected``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neonize.proto.Neonize_pb2 import JID
from neonize.utils.enum import ClientName

from gateway import jids
from gateway.media.limits import RECEIVED_MEDIA_TIMEOUT_SECONDS

from ..port import (
    EventSink,
    NetworkError,
    NetworkErrorKind,
    NetworkEvent,
    SessionState,
)
from . import events
from .clients import CLIENTS, ClientRegistry, ClientRunner, call_with_deadline
from .errors import library_error
from .group_ops import GroupOpsMixin
from .handlers import NetworkHandlers
from .jids import jid_str
from .locks import GO_GATE, GoCallGate
from .media_ops import MediaOpsMixin
from .message_ops import MessageOpsMixin
from .status_ops import StatusOpsMixin
from .store import DeviceStore
from .teardown import TeardownMixin

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class NeonizeTimings:
    """Durations (seconds) of the adapter; the defaults follow whatsmeow's own timers."""

    first_qr_ttl: float = 60.0  # lifetime of the first QR code
    next_qr_ttl: float = 20.0  # lifetime of each rotated QR code
    qr_timeout_grace: float = 15.0  # after the last QR expired, give up waiting for a scan
    first_qr_wait: float = 30.0  # pair_phone waits this long for the first QR
    # Longest exclusive hold of the gate while a connect starts. Measured on the real library
    # (connect() called -> its dial reaching the played network, which comes after the Go map
    # writes): median 4 ms on a new database, 0.9 ms on an existing one, p99 15 ms; with both
    # cores saturated, p99 58 ms. The hold ends earlier when connect() returns or the Go side
    # answers; a silent dial holds it whole (50 starts on a silent network: about 5 s).
    start_hold: float = 0.1
    sink_timeout: float = 60.0  # how long the client thread waits for the sink per event
    stop_join: float = 15.0  # how long a background stop waits for connect() to return
    call_deadline: float = 60.0  # longest wait for any other library call (then TIMEOUT)
    unlink_deadline: float = 5.0  # logout's unlink request (logout answers promptly)
    media_deadline: float = RECEIVED_MEDIA_TIMEOUT_SECONDS  # a received media's download, at most


class NeonizeSession(
    MediaOpsMixin, MessageOpsMixin, GroupOpsMixin, StatusOpsMixin, TeardownMixin, NetworkHandlers
):
    """One device's session on the real network (implements ``DeviceSession``); its send,
    presence and receipt calls come from ``OperationsMixin``, its group calls from
    ``GroupOpsMixin`` (``group_ops.py``), its stories from ``StatusOpsMixin`` (``status_ops.py``)."""

    def __init__(
        self,
        store: DeviceStore,
        *,
        sink: EventSink,
        gate: GoCallGate,
        registry: ClientRegistry,
        timings: NeonizeTimings,
        proxy_url: str | None = None,
    ) -> None:
        self._device_id = store.device_id
        self._proxy_url = proxy_url
        self._store = store
        self._sink = sink
        self._gate = gate
        self._registry = registry
        self._timings = timings
        self._first_qr_ttl = timings.first_qr_ttl
        self._next_qr_ttl = timings.next_qr_ttl
        self._mutex = threading.RLock()
        self._lifecycle = asyncio.Lock()
        self._account: JID | None = store.load_jid()
        self._state = SessionState.DISCONNECTED if self._account else SessionState.NOT_READY
        self._qr: tuple[str, float] | None = None
        self._qr_count = 0
        self._qr_seq = 0
        self._runner: ClientRunner | None = None
        self._last_run: ClientRunner | None = None  # the next run starts once this one finished
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._first_qr: asyncio.Event | None = None
        self._qr_timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Future[Any]] = set()

    # --- DeviceSession properties -------------------------------------------------------

    @property
    def device_id(self) -> str:
        return self._device_id

    @property
    def state(self) -> SessionState:
        with self._mutex:
            return self._state

    @property
    def jid(self) -> str | None:
        with self._mutex:
            return jid_str(self._account)

    @property
    def current_qr(self) -> tuple[str, float] | None:
        with self._mutex:
            if self._state is not SessionState.PAIRING or self._qr is None:
                return None
            return self._qr if self._qr[1] > time.time() else None

    def replace_sink(self, sink: EventSink) -> None:
        """Send the events to another sink from now on (a later ``open_session``)."""
        self._sink = sink

    # --- lifecycle ----------------------------------------------------------------------

    async def connect(self) -> None:
        """Start one attempt in the background and return (see the module docstring)."""
        async with self._lifecycle:
            if self._runner is not None and self._runner.alive:
                return
            self._retire_runner()  # a run that ended by itself is retired first
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()
            await self._verify_credentials()
            with self._mutex:
                account = self._account
            client = self._registry.client_for(self._store.db_name, account)
            runner = ClientRunner(
                client,
                self._gate,
                name=f"neonize-{self._device_id}",
                on_exit=self._on_runner_exit,
                before_connect=lambda: self._bind(client, runner),
                after=self._last_run,
                proxy_url=self._proxy_url,
                stop_join=self._timings.stop_join,
            )
            with self._mutex:
                self._runner = runner
                self._last_run = runner
                self._first_qr = asyncio.Event()
                self._qr = None
                self._qr_count = 0
                self._qr_seq += 1  # the state stays as it is until the network answers: no
                # ``pairing`` before a QR code exists
            runner.launch(self._timings.start_hold)

    async def pair_phone(self, phone: str) -> str:
        """A pair code from the running pairing session; waits for its first QR code first.

        neonize can only ask for a code once the network showed a QR code, so a session that
        has just started waits up to ``first_qr_wait`` for it. It never starts a session.
        """
        self._refuse_if_paired()
        with self._mutex:
            runner, first_qr = self._runner, self._first_qr
        if runner is None or not runner.alive or first_qr is None:
            raise NetworkError(NetworkErrorKind.NOT_CONNECTED, "no pairing session is running")
        if not jids.is_phone(phone):
            raise NetworkError(NetworkErrorKind.INVALID, f"phone must be {jids.PHONE_RULE}")
        deadline = time.monotonic() + self._timings.first_qr_wait
        while not first_qr.is_set():
            if not runner.alive:
                raise NetworkError(NetworkErrorKind.NOT_CONNECTED, "the attempt ended before pairing started")
            if time.monotonic() >= deadline:
                raise NetworkError(
                    NetworkErrorKind.TIMEOUT,
                    f"the network did not start pairing within {self._timings.first_qr_wait:g} s",
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(first_qr.wait(), min(0.05, max(0.0, deadline - time.monotonic())))
        return await call_with_deadline(
            lambda: self._pair_phone_now(phone), self._timings.call_deadline, "pair phone"
        )

    def _pair_phone_now(self, phone: str) -> str:
        with self._gate.shared():
            self._refuse_if_paired()
            with self._mutex:
                runner, state = self._runner, self._state
            if runner is None or not runner.alive or state is not SessionState.PAIRING:
                raise NetworkError(NetworkErrorKind.NOT_CONNECTED, "no pairing session is running")
            try:
                return runner.client.PairPhone(phone, True, ClientName.LINUX)
            except Exception as exc:
                raise library_error("pair phone", exc, phone=True) from exc

    def _refuse_if_paired(self) -> None:
        with self._mutex:
            if self._account is not None or self._state is SessionState.CONNECTED:
                raise NetworkError(NetworkErrorKind.ALREADY_LOGGED_IN, "the device is already paired")

    # --- plumbing between the client thread and the loop --------------------------------

    def _ctx(self) -> events.EventContext:
        with self._mutex:
            return events.EventContext(self._device_id, jid_str(self._account))

    async def _deliver(self, event: NetworkEvent) -> None:
        try:
            await self._sink(event)
        except Exception:
            logger.exception("device %s: event sink failed for %s", self._device_id, event.name)

    def _emit(self, event: NetworkEvent | None) -> None:
        """Deliver an event from the client thread and wait for the sink (ordered)."""
        if event is None:
            return
        loop = self._loop
        if loop is None or loop.is_closed():
            logger.error("device %s: no event loop, %s not delivered", self._device_id, event.name)
            return
        if threading.get_ident() == self._loop_thread:
            self._track(loop.create_task(self._deliver(event)))
            return
        try:
            future = asyncio.run_coroutine_threadsafe(self._deliver(event), loop)
        except RuntimeError:
            logger.error("device %s: event loop closed, %s not delivered", self._device_id, event.name)
            return
        try:
            future.result(timeout=self._timings.sink_timeout)
        except TimeoutError:
            logger.error(
                "device %s: sink still busy with %s after %g s",
                self._device_id,
                event.name,
                self._timings.sink_timeout,
            )

    def _on_loop(self, callback: Callable[..., Any], *args: Any) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(callback, *args)

    def _track(self, future: asyncio.Future[Any]) -> None:
        self._tasks.add(future)
        future.add_done_callback(self._tasks.discard)


class NeonizePort:
    """The real network through neonize 0.5.2 (implements ``NetworkPort``).

    ``open_session`` returns the same session object for the same device and data
    directory (a later call only replaces its sink): neonize allows one client per device
    in a process, so one session per device is the only safe shape.
    """

    def __init__(
        self,
        name: str = "neonize",
        *,
        timings: NeonizeTimings | None = None,
        gate: GoCallGate = GO_GATE,
        registry: ClientRegistry = CLIENTS,
        proxy_url: str | None = None,
    ) -> None:
        """``proxy_url`` (``http://``, ``socks5://``): every session's network connection goes
        through it, given to neonize per connect. None: whatever the process environment had
        at its start (the Go side reads ``HTTPS_PROXY`` once, when the library loads; changing
        ``os.environ`` later does not reach it)."""
        self.name = name
        self._timings = timings or NeonizeTimings()
        self._gate = gate
        self._registry = registry
        self._proxy_url = proxy_url
        self._sessions: dict[str, NeonizeSession] = {}

    def open_session(self, device_id: str, *, data_dir: Path, sink: EventSink) -> NeonizeSession:
        store = DeviceStore(Path(data_dir), device_id)
        store.data_dir.mkdir(parents=True, exist_ok=True)
        session = self._sessions.get(device_id)
        if session is not None and session._store == store:
            session.replace_sink(sink)
            return session
        session = NeonizeSession(
            store,
            sink=sink,
            gate=self._gate,
            registry=self._registry,
            timings=self._timings,
            proxy_url=self._proxy_url,
        )
        self._sessions[device_id] = session
        return session

    def discard(self, device_id: str, *, data_dir: Path) -> None:
        """Forget the device's session and delete its store and sidecar (a device that only
        began pairing has a store too)."""
        session = self._sessions.get(device_id)
        store = DeviceStore(Path(data_dir), device_id)
        if session is not None and session._store == store:
            del self._sessions[device_id]
        store.delete_all()

    async def close_all(self, timeout: float = 5.0) -> int:
        """Close every session (host shutdown) and wait up to ``timeout`` s for their clients
        to be stopped; returns how many runs are still dialing.

        Each ``close()`` returns at once; a run whose dial hangs is stopped only when the dial
        ends (whatsmeow's deadline: about 60 s), and neonize's own thread for it is not a
        daemon thread: a process that must exit sooner ends with ``os._exit`` after this.
        """
        sessions = list(self._sessions.values())
        await asyncio.gather(*(session.close() for session in sessions))
        runs = [session._last_run for session in sessions if session._last_run is not None]
        deadline = time.monotonic() + timeout
        for run in runs:
            await asyncio.to_thread(run.finished.wait, max(0.0, deadline - time.monotonic()))
        return sum(not run.finished.is_set() for run in runs)

    @staticmethod
    def open_descriptors() -> int:
        """File descriptors this process holds open: the leak pressure of the library.

        Every connect attempt opens a store pool in the Go side that is never closed (about
        2 descriptors and 0.2 MB each, for the life of the process; nothing from Python can
        close it). A session host recycles its worker process when this nears the
        descriptor limit (``resource.getrlimit(resource.RLIMIT_NOFILE)``).
        """
        return len(os.listdir("/proc/self/fd")) - 1  # minus the one listdir itself opened
