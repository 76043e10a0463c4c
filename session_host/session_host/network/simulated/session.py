"""One device's session on the simulated network: the port's :class:`DeviceSession`.

The session lives on the event loop that calls :meth:`SimulatedSession.connect`. The
network hands it signals from any thread through ``loop.call_soon_threadsafe``; events go
out through one ordered queue, so the sink sees them in the order they happened.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gateway import jids
from gateway.failures.kinds import ErrorKind

from .. import payloads
from ..port import (
    EventSink,
    NetworkError,
    NetworkEvent,
    SessionState,
)
from . import events
from .core import DeviceLink, NetworkCore
from .model import DIAL_OPERATION, Deliver, DialFault
from .persistence import delete_credentials, load_credentials, save_credentials
from .pump import EventPump
from .session_calls import SimulatedCalls
from .session_contacts import SimulatedContacts
from .session_groups import SimulatedGroups
from .session_messages import SimulatedMessages
from .session_profile import SimulatedPresence, SimulatedProfile
from .session_sending import SimulatedSending
from .session_status import SimulatedStatus

logger = logging.getLogger(__name__)

CRASH_WAIT = 5.0
"""How long :meth:`SimulatedSession.crash` waits for the session's loop to run it."""


class SimulatedSession:
    """A device's session, paired when ``data_dir/<device_id>.json`` holds its credentials:
    its lifecycle and connection here, its operations in one object per family of the port
    (:attr:`sending`, :attr:`messages`, :attr:`groups`, :attr:`status`, :attr:`presence`,
    :attr:`profile`, :attr:`contacts`, :attr:`calls`), all on one
    :class:`~.link.DeviceLink`."""

    def __init__(self, network: NetworkCore, device_id: str, *, data_dir: Path, sink: EventSink) -> None:
        self._network = network
        self._device_id = device_id
        self._data_dir = Path(data_dir)
        self._credentials = load_credentials(self._data_dir, device_id)
        initial = SessionState.DISCONNECTED if self._credentials else SessionState.NOT_READY
        self._link = DeviceLink(network, device_id, initial)
        self.sending = SimulatedSending(self._link)
        self.messages = SimulatedMessages(self._link)
        self.groups = SimulatedGroups(self._link)
        self.status = SimulatedStatus(self._link)
        self.presence = SimulatedPresence(self._link)
        self.profile = SimulatedProfile(self._link)
        self.contacts = SimulatedContacts(self._link)
        self.calls = SimulatedCalls(self._link)
        self._generation = 0  # bumped whenever the connection changes; stale signals are ignored
        self._crashed_at = 0  # signals of connections older than a crash died with the process
        self._qr: tuple[str, float] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pump = EventPump(sink, f"device {device_id}")
        self._pairing: asyncio.Task[None] | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._dialing = False  # an attempt the network never answers (a ``hang`` fault) is open
        self._proxy_url: str | None = None  # what the next connection goes through

    @property
    def device_id(self) -> str:
        return self._device_id

    @property
    def state(self) -> SessionState:
        return self._link.state

    @property
    def jid(self) -> str | None:
        return self._credentials["jid"] if self._credentials else None

    @property
    def current_qr(self) -> tuple[str, float] | None:
        return self._qr if self._link.state is SessionState.PAIRING else None

    def use_proxy(self, proxy_url: str | None) -> None:
        """The network records the proxy of each connection (``GET /_simulator/devices/{id}/connection``)."""
        self._proxy_url = proxy_url

    # --- lifecycle --------------------------------------------------------------------

    async def connect(self) -> None:
        """One attempt (port contract): a fault on ``connect`` fails it with a
        ``connection.failure`` (``hang``: it never answers), else it pairs or resumes."""
        self._bind()
        if self._link.state in (SessionState.CONNECTED, SessionState.PAIRING) or self._dialing:
            return
        self._cancel_tasks()
        if self._dial_failed():
            return
        if self._credentials is None:
            self._start_pairing()
        else:
            self._resume()

    async def pair_phone(self, phone: str) -> str:
        if self._credentials is not None:
            raise NetworkError(ErrorKind.ALREADY_LOGGED_IN, f"device {self._device_id} is paired")
        if self._link.state is not SessionState.PAIRING:
            raise NetworkError(ErrorKind.NOT_CONNECTED, f"device {self._device_id} is not pairing")
        if not jids.is_phone(phone):
            raise NetworkError(ErrorKind.INVALID, f"phone must be {jids.PHONE_RULE}")
        await self._link.fault("pair_phone")
        if self._link.conn is None or self._link.state is not SessionState.PAIRING:
            raise NetworkError(ErrorKind.NOT_CONNECTED, f"device {self._device_id} is not pairing")
        return self._network.request_pair_code(self._link.conn, phone)

    async def disconnect(self) -> None:
        if self._link.conn is None and self._reconnecting is None and not self._dialing:
            return
        await self._link.fault("disconnect")
        self._halt()
        logged_in = self._credentials is not None
        self._link.state = SessionState.DISCONNECTED if logged_in else SessionState.NOT_READY
        self._emit(payloads.device_disconnected(self._device_id, "manual", logged_in=logged_in))

    async def logout(self) -> None:
        """Unlink through the network when connected, else only forget the credentials here.

        Offline, the network is not told: the phone keeps listing the linked device (and the
        network keeps its traffic) until the phone removes it (:meth:`SimulatedNetwork.unlink`).
        """
        if self._credentials is None:
            raise NetworkError(ErrorKind.NOT_CONNECTED, "the device is not logged in")
        self._bind()
        if self._link.conn is not None:
            await self._link.fault("logout")  # only the network call can fail
        credentials = self._credentials
        self._cancel_tasks()
        self._generation += 1
        self._qr = None
        conn, self._link.conn = self._link.conn, None
        if conn is not None:
            self._network.logout(conn, credentials["device_key"])
        else:
            logger.warning(
                "device %s: logout while not connected, credentials deleted locally", self._device_id
            )
        self._forget_credentials()
        self._link.state = SessionState.LOGGED_OUT
        self._emit(payloads.device_logged_out(self._device_id, "logout"))

    async def close(self) -> None:
        self._halt()
        if self._link.state is not SessionState.LOGGED_OUT:
            self._link.state = SessionState.DISCONNECTED if self._credentials else SessionState.NOT_READY
        await self._pump.drain()

    # --- connection -------------------------------------------------------------------

    def _dial_failed(self) -> bool:
        """Whether a fault takes this connection attempt (it is then reported, or left hanging)."""
        taken = self._network.take_fault(DIAL_OPERATION, self._device_id)
        if taken is None:
            return False
        fault = taken.kind
        if fault is DialFault.HANG:
            self._dialing = True
            return True
        reason = "timeout" if fault is ErrorKind.TIMEOUT else "dial_error"
        self._link.state = SessionState.DISCONNECTED if self._credentials else SessionState.NOT_READY
        self._emit(
            payloads.connection_failure(self._device_id, reason, f"simulated {fault} fault on connect")
        )
        return True

    def _start_pairing(self) -> None:
        """Open a pairing connection showing its first QR code before ``connect()`` returns."""
        self._generation += 1
        self._link.conn = self._network.start_pairing(
            self._device_id, self._deliverer(self._generation), self._proxy_url
        )
        self._link.state = SessionState.PAIRING
        self._show_qr(self._link.conn, self._network.qr_lifetimes[0])
        self._pairing = self._running_loop().create_task(self._rotate_qr(self._generation, self._link.conn))

    def _show_qr(self, conn: str, lifetime: float) -> bool:
        code = self._network.show_qr(conn)
        if code is None:  # paired meanwhile, or the connection is gone
            return False
        expires_at = time.time() + lifetime
        self._qr = (code, expires_at)
        self._emit(payloads.qr_generated(self._device_id, code, expires_at))
        return True

    async def _rotate_qr(self, generation: int, conn: str) -> None:
        lifetimes = self._network.qr_lifetimes
        await asyncio.sleep(lifetimes[0])
        for lifetime in lifetimes[1:]:
            if generation != self._generation or not self._show_qr(conn, lifetime):
                return
            await asyncio.sleep(lifetime)
        if generation == self._generation and self._network.end_pairing(conn):
            self._generation += 1
            self._link.conn = self._qr = self._pairing = None
            self._link.state = SessionState.NOT_READY
            error = "no phone scanned the QR code in time"
            self._emit(payloads.pair_error(self._device_id, "qr_timeout", error))

    def _resume(self) -> None:
        assert self._credentials is not None
        self._generation += 1
        deliver = self._deliverer(self._generation)
        conn = self._network.resume(self._device_id, self._credentials, deliver, self._proxy_url)
        if conn is None:  # the phone unlinked this device while it was away
            self._forget_credentials()
            self._link.state = SessionState.LOGGED_OUT
            self._emit(payloads.device_logged_out(self._device_id, "logged_out"))
            return
        self._link.conn = conn
        self._link.state = SessionState.CONNECTED
        self._emit(payloads.device_connected(self._device_id, self.jid))

    async def _reconnect(self, generation: int) -> None:
        """After a drop the session tries once by itself, as the real client does; a failed
        try is a ``connection.failure`` and the session host's supervisor takes over."""
        await asyncio.sleep(self._network.reconnect_delay)
        if generation != self._generation:
            return
        self._reconnecting = None
        if not self._dial_failed():
            self._resume()

    def _halt(self) -> None:
        """Leave the network and stop every timer; keeps credentials that arrived meanwhile."""
        self._cancel_tasks()
        self._dialing = False
        self._generation += 1
        self._qr = None
        conn, self._link.conn = self._link.conn, None
        if conn is not None:
            credentials = self._network.leave(conn)
            if credentials and self._credentials is None:  # paired just before leaving
                self._adopt(credentials)

    def _cancel_tasks(self) -> None:
        current = asyncio.current_task() if _running_loop() is not None else None
        for task in (self._pairing, self._reconnecting):
            if (
                task is not None
                and task is not current
                and not task.done()
                and not task.get_loop().is_closed()
            ):
                task.cancel()
        self._pairing = self._reconnecting = None

    def _adopt(self, credentials: dict[str, str]) -> None:
        save_credentials(self._data_dir, self._device_id, credentials)
        self._credentials = dict(credentials)
        self._emit(events.pair_success(self._device_id, credentials["jid"]))

    def _forget_credentials(self) -> None:
        delete_credentials(self._data_dir, self._device_id)
        self._credentials = None

    # --- the host process dying (tests of host failover) -------------------------------

    def crash(self) -> None:
        """Die with the host process: the connection vanishes, timers stop, nothing is emitted.

        Credentials stay as they are on disk, so a session opened later from the same
        ``data_dir`` resumes; events the sink has not taken yet are lost, as in a real
        crash. Runs on the session's loop (waiting for it when called from another thread),
        so no timer of the session can open a connection meanwhile.
        """
        loop = self._loop
        if loop is None or loop.is_closed() or not loop.is_running() or _running_loop() is loop:
            self._die()
            return
        done = threading.Event()

        def die() -> None:
            try:
                self._die()
            finally:
                done.set()

        loop.call_soon_threadsafe(die)
        if not done.wait(CRASH_WAIT):
            raise TimeoutError(f"device {self._device_id}: the session's loop did not run the crash")

    def _die(self) -> None:
        self._cancel_tasks()
        self._generation += 1
        self._crashed_at = self._generation
        self._qr = None
        conn, self._link.conn = self._link.conn, None
        if conn is not None:
            self._network.leave(conn)  # a link made just now is lost with the process
        self._pump.abandon()
        if self._link.state is not SessionState.LOGGED_OUT:
            self._link.state = SessionState.DISCONNECTED if self._credentials else SessionState.NOT_READY

    # --- signals from the network (run on the session's loop) -------------------------

    def _deliverer(self, generation: int) -> Deliver:
        loop = self._running_loop()

        def deliver(kind: str, payload: Mapping[str, Any]) -> None:
            loop.call_soon_threadsafe(self._on_signal, generation, kind, dict(payload))

        return deliver

    def _on_signal(self, generation: int, kind: str, payload: dict[str, Any]) -> None:
        if generation < self._crashed_at:
            return
        if kind == "event":  # traffic handed to this device is never dropped
            self._emit(events.from_item(payload, self._network.media_bytes))
            return
        if generation != self._generation:
            return
        handler: Callable[[dict[str, Any]], None] = getattr(self, f"_on_{kind}")
        handler(payload)

    def _on_paired(self, payload: dict[str, Any]) -> None:
        self._cancel_tasks()
        self._qr = None
        self._adopt({"jid": payload["jid"], "device_key": payload["device_key"]})
        self._link.state = SessionState.CONNECTED
        self._emit(payloads.device_connected(self._device_id, self.jid))

    def _on_dropped(self, payload: dict[str, Any]) -> None:
        self._link.conn = None
        self._generation += 1
        if self._credentials is None:  # lost while showing QR codes: the pairing attempt ends
            self._cancel_tasks()
            self._qr = None
            self._link.state = SessionState.NOT_READY
            self._emit(
                payloads.pair_error(
                    self._device_id, payload["reason"], "the connection was lost while pairing"
                )
            )
            return
        self._link.state = SessionState.DISCONNECTED
        self._emit(payloads.device_disconnected(self._device_id, payload["reason"]))
        self._reconnecting = self._running_loop().create_task(self._reconnect(self._generation))

    def _on_replaced(self, _payload: dict[str, Any]) -> None:
        self._link.conn = None
        self._generation += 1
        self._link.state = SessionState.DISCONNECTED
        self._emit(payloads.stream_replaced(self._device_id))
        self._emit(payloads.device_disconnected(self._device_id, "stream_replaced"))

    def _on_logged_out(self, payload: dict[str, Any]) -> None:
        self._link.conn = None
        self._generation += 1
        self._forget_credentials()
        self._link.state = SessionState.LOGGED_OUT
        self._emit(payloads.device_logged_out(self._device_id, payload["reason"]))

    # --- events -----------------------------------------------------------------------

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        assert self._loop is not None, "connect() binds the session to its loop first"
        return self._loop

    def _bind(self) -> None:
        """Bind to the running loop; a session whose previous loop is gone starts over here."""
        loop = asyncio.get_running_loop()
        self._pump.start(loop)
        if self._loop is not None and self._loop is not loop:
            self._pairing = self._reconnecting = None  # they died with their loop
            self._halt()
            if self._link.state is not SessionState.LOGGED_OUT:
                self._link.state = SessionState.DISCONNECTED if self._credentials else SessionState.NOT_READY
        self._loop = loop

    def _emit(self, event: NetworkEvent) -> None:
        self._pump.emit(event)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
