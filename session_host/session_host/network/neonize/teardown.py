"""Ending sessions: disconnect, logout, close, terminal network conditions, QR timeout.

Every path ends in :meth:`TeardownMixin._retire_runner`, which returns at once: the run is
stopped in the background once its dial is over (:meth:`.clients.ClientRunner.retire`), and
the device's next run waits for that, no other device. Lifecycle changes are serialised by
the session's ``_lifecycle`` lock, which is never held across a network wait (the unlink of
``logout`` has a deadline).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from neonize.proto.Neonize_pb2 import JID

from .. import payloads
from ..port import EventSink, NetworkError, NetworkErrorKind, NetworkEvent, SessionState
from .clients import ClientRunner
from .store import DeviceStore

logger = logging.getLogger(__name__)


class TeardownMixin:
    """Lifecycle endings of ``NeonizeSession`` (which owns the state used here)."""

    _device_id: str
    _mutex: threading.RLock
    _lifecycle: asyncio.Lock
    _state: SessionState
    _account: JID | None
    _qr: tuple[str, float] | None
    _qr_seq: int
    _runner: ClientRunner | None
    _store: DeviceStore
    _sink: EventSink
    _loop: asyncio.AbstractEventLoop | None
    _first_qr: asyncio.Event | None
    _qr_timer: asyncio.TimerHandle | None
    _timings: Any

    if TYPE_CHECKING:  # provided by NeonizeSession and NetworkHandlers

        async def _deliver(self, event: NetworkEvent) -> None: ...
        def _track(self, future: asyncio.Future[Any]) -> None: ...
        def _pairing_ended(self, runner: ClientRunner, reason: str, error: str) -> NetworkEvent | None: ...
        async def _call(self, operation: str, call: Any, *, deadline: float | None = None) -> Any: ...

    async def disconnect(self) -> None:
        """Stop the client and keep the login; ``device.disconnected`` if a session was running."""
        async with self._lifecycle:
            running = self._runner is not None
            if running:
                self._settle()
            self._retire_runner()
            if running:
                with self._mutex:
                    logged_in = self._account is not None
                event = payloads.device_disconnected(self._device_id, "manual", logged_in=logged_in)
                await self._deliver(event)

    async def close(self) -> None:
        """Stop the client without logging out and without events (shutdown, lease lost)."""
        async with self._lifecycle:
            if self._runner is not None:
                self._settle()
            self._retire_runner()

    async def logout(self) -> None:
        """Unlink the device (when connected), stop the client and delete its credentials.

        A paired device that is not connected cannot tell the network; its credentials are
        still deleted here, and the phone lists the linked device until it is removed there
        (or the network expires it). A failed unlink raises and deletes nothing. A device
        that never paired raises ``NOT_CONNECTED`` and keeps running as it was.
        """
        async with self._lifecycle:
            with self._mutex:
                connected = self._state is SessionState.CONNECTED
                logged_in = self._account is not None or connected
                runner = self._runner
            if not logged_in:
                raise NetworkError(NetworkErrorKind.NOT_CONNECTED, "the device is not logged in")
            if connected and runner is not None:
                runner.stopping = True  # the unlink drops the connection: not a network loss
                try:
                    await self._call(
                        "logout", lambda client: client.logout(), deadline=self._timings.unlink_deadline
                    )
                except BaseException:
                    runner.stopping = False
                    raise
            else:
                logger.warning(
                    "device %s: logout while not connected, credentials deleted locally", self._device_id
                )
            with self._mutex:
                self._state = SessionState.LOGGED_OUT
                self._account = None
                self._qr = None
                self._qr_seq += 1
            self._retire_runner()
            self._store.delete_all()
            await self._deliver(payloads.device_logged_out(self._device_id, "logout"))

    def _settle(self) -> None:
        """State after a requested stop that keeps the login."""
        with self._mutex:
            if self._state is not SessionState.LOGGED_OUT:
                paired = self._account is not None
                self._state = SessionState.DISCONNECTED if paired else SessionState.NOT_READY
            self._qr = None
            self._qr_seq += 1

    def _retire_runner(self) -> None:
        """End the current client run; returns at once (the stop happens in the background)."""
        with self._mutex:
            runner, self._runner = self._runner, None
        if self._qr_timer is not None:
            self._qr_timer.cancel()
            self._qr_timer = None
        if runner is not None:
            runner.retire()

    async def _terminate(self, runner: ClientRunner, *, delete_credentials: bool) -> None:
        """Retire a run that the network ended; delete credentials if the network dropped them."""
        async with self._lifecycle:
            if self._runner is not runner:
                return  # already retired, or a new run started meanwhile
            self._retire_runner()
            with self._mutex:
                unpaired = self._account is None
            if delete_credentials and unpaired:
                self._store.delete_all()

    def _schedule_terminate(self, runner: ClientRunner, *, delete_credentials: bool) -> None:
        """From the client thread: stop the run on the loop, without waiting for it."""
        loop = self._loop
        if loop is None or loop.is_closed():
            logger.error("device %s: no event loop to stop the ended session", self._device_id)
            return
        coroutine = self._terminate(runner, delete_credentials=delete_credentials)
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        future.add_done_callback(self._log_failure)

    def _log_failure(self, future: Any) -> None:
        if not future.cancelled() and future.exception() is not None:
            logger.error(
                "device %s: stopping the session failed", self._device_id, exc_info=future.exception()
            )

    async def _verify_credentials(self) -> None:
        """Before resuming: the stored JID must still be in whatsmeow's store (see store.py)."""
        with self._mutex:
            account = self._account
        if account is None or await asyncio.to_thread(self._store.has_device, account):
            return
        logger.warning("device %s: stored account is gone from the database; pairing again", self._device_id)
        self._store.delete_all()
        with self._mutex:
            self._account = None
            self._state = SessionState.LOGGED_OUT
        await self._deliver(payloads.device_logged_out(self._device_id, "credentials_missing"))

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
        with self._mutex:
            runner = self._runner
            if seq != self._qr_seq or runner is None:
                return
        event = self._pairing_ended(runner, "qr_timeout", "the QR code expired before it was scanned")
        if event is not None:
            self._track(asyncio.ensure_future(self._deliver_then_stop(event, runner)))

    async def _deliver_then_stop(self, event: NetworkEvent, runner: ClientRunner) -> None:
        await self._deliver(event)
        await self._terminate(runner, delete_credentials=False)
