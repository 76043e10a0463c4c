"""One device's session on the real network: its lifecycle here, its operations in its families.

Threading: each session runs neonize's blocking ``connect()`` on its own daemon thread
(:class:`~.clients.ClientRunner`); neonize reports QR codes and events on that run, one at a
time, to the session's :class:`~.handlers.NetworkHandlers`, which pass each event to the loop
through the :class:`~.handlers.EventRelay`. Every other library call (send, presence, receipts,
pair code, logout) runs on a thread of its own with a deadline
(:func:`~.clients.call_with_deadline`), through the process-wide gate (``locks.py``).

Lifecycle: ``connect()`` starts one attempt and returns at once (the run starts in the
background, after the device's previous run is over). Every ending (``disconnect``,
``logout``, ``close``, a failure the network reports, ``connect()`` returning by itself)
*retires* the run (:meth:`NeonizeSession._retire_runner`): it returns at once and the client
is stopped in the background once its dial is over (``clients.py``); the device's next run
waits for that, no other device. A failed attempt emits one ``connection.failure``
``{device_id, reason, message, permanent}`` and leaves the session idle; the next
``connect()`` starts a new attempt. A device shows ``pairing`` only once a QR code arrived.
Lifecycle changes are serialised by the session's ``_lifecycle`` lock, which is never held
across a network wait (the unlink of ``logout`` has a deadline).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from neonize.utils.enum import ClientName

from gateway import jids
from gateway.failures.kinds import ErrorKind

from .. import payloads
from ..port import EventSink, NetworkError, NetworkEvent, SessionState
from .call_ops import NeonizeCalls
from .clients import ClientRegistry, ClientRunner, call_with_deadline
from .contact_ops import NeonizeContacts
from .group_ops import NeonizeGroups
from .handlers import EventRelay, NetworkHandlers
from .link import DeviceLink, library_error
from .locks import GoCallGate
from .message_ops import NeonizeMessages
from .profile_ops import NeonizePresence, NeonizeProfile
from .send_ops import NeonizeSending
from .status_ops import NeonizeStatus
from .store import DeviceStore
from .timings import NeonizeTimings

logger = logging.getLogger(__name__)


class NeonizeSession:
    """One device's session on the real network (the port's ``DeviceSession``): its lifecycle
    here, its operations in one object per family of the port (:attr:`sending`,
    :attr:`messages`, :attr:`groups`, :attr:`status`, :attr:`presence`, :attr:`profile`,
    :attr:`contacts`, :attr:`calls`), all on one :class:`~.link.DeviceLink`."""

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
        self._link = DeviceLink(store, gate, timings)
        self._relay = EventRelay(store.device_id, sink, timings.sink_timeout)
        self._handlers = NetworkHandlers(
            self._link, self._relay, terminate=self._schedule_terminate, qr_shown=self._qr_shown
        )
        self.sending = NeonizeSending(self._link)
        self.messages = NeonizeMessages(self._link)
        self.groups = NeonizeGroups(self._link)
        self.status = NeonizeStatus(self._link)
        self.presence = NeonizePresence(self._link)
        self.profile = NeonizeProfile(self._link)
        self.contacts = NeonizeContacts(self._link)
        self.calls = NeonizeCalls(self._link)
        self._registry = registry
        self._timings = timings
        self._port_proxy_url = self._proxy_url = proxy_url
        self._lifecycle = asyncio.Lock()
        self._last_run: ClientRunner | None = None  # the next run starts once this one finished
        self._first_qr: asyncio.Event | None = None
        self._qr_timer: asyncio.TimerHandle | None = None

    # --- DeviceSession properties -------------------------------------------------------

    @property
    def device_id(self) -> str:
        return self._link.device_id

    @property
    def state(self) -> SessionState:
        with self._link.mutex:
            return self._link.state

    @property
    def jid(self) -> str | None:
        return self._link.own_jid()

    @property
    def current_qr(self) -> tuple[str, float] | None:
        link = self._link
        with link.mutex:
            if link.state is not SessionState.PAIRING or link.qr is None:
                return None
            return link.qr if link.qr[1] > time.time() else None

    @property
    def store(self) -> DeviceStore:
        """Where the device's files are (the port matches a later ``open_session`` on it)."""
        return self._link.store

    @property
    def last_run(self) -> ClientRunner | None:
        """The latest client run (the port waits for it to finish at shutdown)."""
        return self._last_run

    def use_proxy(self, proxy_url: str | None) -> None:
        """Given to neonize at the next connect (``connect(ProxySettings(...))``, which
        whatsmeow applies to its dial; None: the port's proxy, or the process environment's)."""
        self._proxy_url = proxy_url or self._port_proxy_url

    def replace_sink(self, sink: EventSink) -> None:
        """Send the events to another sink from now on (a later ``open_session``)."""
        self._relay.replace_sink(sink)

    # --- starting -----------------------------------------------------------------------

    async def connect(self) -> None:
        """Start one attempt in the background and return (see the module docstring)."""
        link = self._link
        async with self._lifecycle:
            if link.runner is not None and link.runner.alive:
                return
            self._retire_runner()  # a run that ended by itself is retired first
            self._relay.bind()
            await self._verify_credentials()
            with link.mutex:
                account = link.account
            client = self._registry.client_for(link.store.db_name, account)
            runner = ClientRunner(
                client,
                link.gate,
                name=f"neonize-{link.device_id}",
                on_exit=self._handlers.on_runner_exit,
                before_connect=lambda: self._handlers.bind(client, runner),
                after=self._last_run,
                proxy_url=self._proxy_url,
                stop_join=self._timings.stop_join,
            )
            with link.mutex:
                link.runner = runner
                self._last_run = runner
                self._first_qr = asyncio.Event()
                link.qr = None
                link.qr_count = 0
                link.qr_seq += 1  # the state stays as it is until the network answers: no
                # ``pairing`` before a QR code exists
            runner.launch(self._timings.start_hold)

    async def pair_phone(self, phone: str) -> str:
        """A pair code from the running pairing session; waits for its first QR code first.

        neonize can only ask for a code once the network showed a QR code, so a session that
        has just started waits up to ``first_qr_wait`` for it. It never starts a session.
        """
        self._refuse_if_paired()
        with self._link.mutex:
            runner, first_qr = self._link.runner, self._first_qr
        if runner is None or not runner.alive or first_qr is None:
            raise NetworkError(ErrorKind.NOT_CONNECTED, "no pairing session is running")
        if not jids.is_phone(phone):
            raise NetworkError(ErrorKind.INVALID, f"phone must be {jids.PHONE_RULE}")
        deadline = time.monotonic() + self._timings.first_qr_wait
        while not first_qr.is_set():
            if not runner.alive:
                raise NetworkError(ErrorKind.NOT_CONNECTED, "the attempt ended before pairing started")
            if time.monotonic() >= deadline:
                raise NetworkError(
                    ErrorKind.TIMEOUT,
                    f"the network did not start pairing within {self._timings.first_qr_wait:g} s",
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(first_qr.wait(), min(0.05, max(0.0, deadline - time.monotonic())))
        return await call_with_deadline(
            lambda: self._pair_phone_now(phone), self._timings.call_deadline, "pair phone"
        )

    def _pair_phone_now(self, phone: str) -> str:
        link = self._link
        with link.gate.shared():
            self._refuse_if_paired()
            with link.mutex:
                runner, state = link.runner, link.state
            if runner is None or not runner.alive or state is not SessionState.PAIRING:
                raise NetworkError(ErrorKind.NOT_CONNECTED, "no pairing session is running")
            try:
                code: str = runner.client.PairPhone(phone, True, ClientName.LINUX)
                return code
            except Exception as exc:
                raise library_error("pair phone", exc, phone=True) from exc

    def _refuse_if_paired(self) -> None:
        with self._link.mutex:
            if self._link.account is not None or self._link.state is SessionState.CONNECTED:
                raise NetworkError(ErrorKind.ALREADY_LOGGED_IN, "the device is already paired")

    async def _verify_credentials(self) -> None:
        """Before resuming: the stored JID must still be in whatsmeow's store (see store.py)."""
        link = self._link
        with link.mutex:
            account = link.account
        if account is None or await asyncio.to_thread(link.store.has_device, account):
            return
        logger.warning("device %s: stored account is gone from the database; pairing again", link.device_id)
        link.store.delete_all()
        with link.mutex:
            link.account = None
            link.state = SessionState.LOGGED_OUT
        await self._relay.deliver(payloads.device_logged_out(link.device_id, "credentials_missing"))

    # --- ending -------------------------------------------------------------------------

    async def disconnect(self) -> None:
        """Stop the client and keep the login; ``device.disconnected`` if a session was running."""
        async with self._lifecycle:
            running = self._link.runner is not None
            if running:
                self._settle()
            self._retire_runner()
            if running:
                with self._link.mutex:
                    logged_in = self._link.account is not None
                event = payloads.device_disconnected(self.device_id, "manual", logged_in=logged_in)
                await self._relay.deliver(event)

    async def close(self) -> None:
        """Stop the client without logging out and without events (shutdown, lease lost)."""
        async with self._lifecycle:
            if self._link.runner is not None:
                self._settle()
            self._retire_runner()

    async def logout(self) -> None:
        """Unlink the device (when connected), stop the client and delete its credentials.

        A paired device that is not connected cannot tell the network; its credentials are
        still deleted here, and the phone lists the linked device until it is removed there
        (or the network expires it). A failed unlink raises and deletes nothing. A device
        that never paired raises ``NOT_CONNECTED`` and keeps running as it was.
        """
        link = self._link
        async with self._lifecycle:
            with link.mutex:
                connected = link.state is SessionState.CONNECTED
                logged_in = link.account is not None or connected
                runner = link.runner
            if not logged_in:
                raise NetworkError(ErrorKind.NOT_CONNECTED, "the device is not logged in")
            if connected and runner is not None:
                runner.stopping = True  # the unlink drops the connection: not a network loss
                try:
                    await link.call(
                        "logout", lambda client: client.logout(), deadline=self._timings.unlink_deadline
                    )
                except BaseException:
                    runner.stopping = False
                    raise
            else:
                logger.warning(
                    "device %s: logout while not connected, credentials deleted locally", link.device_id
                )
            with link.mutex:
                link.state = SessionState.LOGGED_OUT
                link.account = None
                link.qr = None
                link.qr_seq += 1
            self._retire_runner()
            link.store.delete_all()
            await self._relay.deliver(payloads.device_logged_out(link.device_id, "logout"))

    def _settle(self) -> None:
        """State after a requested stop that keeps the login."""
        link = self._link
        with link.mutex:
            if link.state is not SessionState.LOGGED_OUT:
                link.state = SessionState.DISCONNECTED if link.account is not None else SessionState.NOT_READY
            link.qr = None
            link.qr_seq += 1

    def _retire_runner(self) -> None:
        """End the current client run; returns at once (the stop happens in the background)."""
        with self._link.mutex:
            runner, self._link.runner = self._link.runner, None
        if self._qr_timer is not None:
            self._qr_timer.cancel()
            self._qr_timer = None
        if runner is not None:
            runner.retire()

    async def _terminate(self, runner: ClientRunner, *, delete_credentials: bool) -> None:
        """Retire a run that the network ended; delete credentials if the network dropped them."""
        async with self._lifecycle:
            if self._link.runner is not runner:
                return  # already retired, or a new run started meanwhile
            self._retire_runner()
            with self._link.mutex:
                unpaired = self._link.account is None
            if delete_credentials and unpaired:
                self._link.store.delete_all()

    def _schedule_terminate(self, runner: ClientRunner, *, delete_credentials: bool) -> None:
        """From the client thread: stop the run on the loop, without waiting for it."""
        loop = self._relay.loop
        if loop is None or loop.is_closed():
            logger.error("device %s: no event loop to stop the ended session", self.device_id)
            return
        coroutine = self._terminate(runner, delete_credentials=delete_credentials)
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        future.add_done_callback(self._log_failure)

    def _log_failure(self, future: Any) -> None:
        if not future.cancelled() and future.exception() is not None:
            logger.error(
                "device %s: stopping the session failed", self.device_id, exc_info=future.exception()
            )

    # --- QR codes (on the loop) ---------------------------------------------------------

    def _qr_shown(self, seq: int, expires_at: float) -> None:
        """A QR code is shown: wake pair_phone, and watch for the end of the rotation."""
        if self._first_qr is not None:
            self._first_qr.set()
        if self._qr_timer is not None:
            self._qr_timer.cancel()
        loop = asyncio.get_running_loop()
        delay = max(0.0, expires_at - time.time()) + self._timings.qr_timeout_grace
        self._qr_timer = loop.call_later(delay, self._qr_expired, seq)

    def _qr_expired(self, seq: int) -> None:
        """No new QR, no pairing, since the last code expired: the QR rotation has timed out."""
        with self._link.mutex:
            runner = self._link.runner
            if seq != self._link.qr_seq or runner is None:
                return
        event = self._link.end_pairing(runner, "qr_timeout", "the QR code expired before it was scanned")
        if event is not None:
            self._relay.track(asyncio.ensure_future(self._deliver_then_stop(event, runner)))

    async def _deliver_then_stop(self, event: NetworkEvent, runner: ClientRunner) -> None:
        await self._relay.deliver(event)
        await self._terminate(runner, delete_credentials=False)
