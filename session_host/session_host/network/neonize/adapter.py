"""The neonize adapter: :class:`NeonizePort` opens one :class:`~.session.NeonizeSession` per device.

A session is a set of collaborators sharing one :class:`~.link.DeviceLink` (the device's
state and the gated call every operation goes through): its lifecycle (:mod:`.session`),
the handlers of what the Go side reports, with the relay of their events to the loop
(:mod:`.handlers`), and one object per operation family of the port (``send_ops``,
``message_ops``, ``group_ops``, ``status_ops``). What neonize cannot do is refused from one
table (:data:`.catalog.UNSUPPORTED_OPERATIONS`).

The async twin (``neonize.aioze``) was not chosen: all its clients must share one loop, each
session pins one default-executor thread for its life (the executor must be sized above the
session count or the host starves), and exceptions in its handlers are lost silently. The
sync client gives the same one-thread-per-session cost with threads this adapter owns,
names and stops, and handler failures it can log.

Traps of neonize 0.5.2 handled here (see ``notes/neonize.md``): one SQLite file per device
plus the account JID in a sidecar (``store.py``); every handler registered before
``connect()``; connect-start and ``stop()`` serialised process-wide and other calls kept
apart from them (``locks.py``); calls that abort the process on a client that is not
connected are only made after checking the session state (:meth:`.link.DeviceLink.call`);
client objects kept alive, one per Go-side key (``clients.py``); QR rotation, QR timeout
(stop and report), pair code only after the first QR; endings ``disconnect()`` then
``stop()`` the client so ``connect()`` returns; whatsmeow's own reconnects after a drop
surface as ``device.disconnected`` then ``device.connected``.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from ..port import EventSink
from .clients import CLIENTS, ClientRegistry
from .locks import GO_GATE, GoCallGate
from .session import NeonizeSession
from .store import DeviceStore
from .timings import NeonizeTimings


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
        if session is not None and session.store == store:
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
        if session is not None and session.store == store:
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
        runs = [session.last_run for session in sessions if session.last_run is not None]
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
