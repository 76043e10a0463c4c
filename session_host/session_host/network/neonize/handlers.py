"""A session's handlers for what the Go side reports, run on the client's thread.

neonize calls these on the thread of the blocking ``connect()``, one at a time. Each one
updates the session's :class:`~.link.DeviceLink` under its mutex, then hands its events to
the loop and waits for the sink (:meth:`EventRelay.emit`, below), which keeps events in
order and slows the Go side down instead of queueing without bound. Every handler is wrapped by
:meth:`NetworkHandlers._guarded`: an exception is logged with the device and the handler
name (never lost in ctypes' "Exception ignored" output), and reports from a client run
that is no longer the session's current one are ignored.

Every event type is registered before ``connect()`` (types registered later are never
delivered): the session's own handlers here, and every class of :data:`.mapping.MAPPED`,
which become catalog events without touching the session state. The QR codes come from
the ``client.event.qr`` callback, which fires on every rotation; ``QREv`` is deliberately
not subscribed, as neonize queues it behind the pairing loop and delivers it, stale, only
after pairing. The QR channel's end (``success``, ``timeout``, ``err-*``) only reaches
neonize's private login-status callback, which is replaced per client
(``_NewClient__onLoginStatus``, read when ``connect()`` starts).

Ends of an attempt: whatever ends it without a request (``connect()`` returning by itself:
``dial_error``, ``timeout`` or ``session_ended``; a ``ConnectFailureEv``, sent only for
failures whatsmeow does not retry; a ``StreamErrorEv``; client outdated) emits one
``connection.failure`` ``{device_id, reason, message, permanent}`` and retires the run, so
the session is idle and the next ``connect()`` starts afresh. ``ConnectFailureEv`` codes
that mean the device was unlinked are a logout (``device.logged_out``), a temporary ban is
``connection.temporary_ban``. A drop after login is whatsmeow's to repair:
``device.disconnected`` (``connection_lost``), then ``device.connected``.

The path of the events to the host's loop (:class:`EventRelay`): each is handed to the loop
with ``asyncio.run_coroutine_threadsafe`` and the handler waits for ``sink(event)`` to finish,
so events reach the sink in order and a slow sink slows the Go side (bounded by whatsmeow's
buffer) instead of filling an unbounded queue. A sink that fails is logged, never raised into
the library.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from neonize.client import NewClient
from neonize.events import (
    CallOfferEv,
    CallOfferNoticeEv,
    ClientOutdatedEv,
    ConnectedEv,
    ConnectFailureEv,
    DisconnectedEv,
    LoggedOutEv,
    MessageEv,
    PairStatusEv,
    StreamErrorEv,
    StreamReplacedEv,
    TemporaryBanEv,
)
from neonize.proto.Neonize_pb2 import JID

from gateway.webhooks.catalog import EventName

from .. import payloads
from ..port import EventSink, NetworkEvent, SessionState
from . import events
from .clients import ClientRunner
from .link import DeviceLink
from .mapping import MAPPED, Mapper
from .media import with_media

logger = logging.getLogger(__name__)

LOGGED_OUT_CODES = frozenset({"logged_out", "main_device_gone", "unknown_logout"})
"""whatsmeow's ConnectFailure reasons that mean the device was unlinked (its IsLoggedOut)."""

_TIMEOUT_MARKERS = ("deadline exceeded", "timed out", "timeout")
_DIAL_MARKERS = ("dial", "lookup", "no such host", "connection refused", "connection reset", "eof")


def exit_reason(error: BaseException | None) -> tuple[str, str]:
    """Why ``connect()`` ended by itself: ``timeout``, ``dial_error`` or ``session_ended``."""
    if error is None:
        return "session_ended", "connect() returned without stop()"
    message = str(error) or type(error).__name__
    lowered = message.lower()
    if any(marker in lowered for marker in _TIMEOUT_MARKERS):
        return "timeout", message
    if any(marker in lowered for marker in _DIAL_MARKERS):
        return "dial_error", message
    return "session_ended", message


def _c_string(value: Any) -> str:
    """A C string handed over by ctypes (an address), or already bytes/str."""
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, str):
        return value
    return ctypes.string_at(value).decode(errors="replace") if value else ""


class EventRelay:
    """Delivers a session's events to its sink on the loop the session was connected from."""

    def __init__(self, device_id: str, sink: EventSink, sink_timeout: float) -> None:
        self._device_id = device_id
        self._sink = sink
        self._sink_timeout = sink_timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._tasks: set[asyncio.Future[Any]] = set()

    def bind(self) -> None:
        """Deliver on the running loop from now on (each ``connect()`` binds its loop)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop

    def replace_sink(self, sink: EventSink) -> None:
        """Send the events to another sink from now on (a later ``open_session``)."""
        self._sink = sink

    async def deliver(self, event: NetworkEvent) -> None:
        """Hand one event to the sink, on the loop; a failing sink is logged."""
        try:
            await self._sink(event)
        except Exception:
            logger.exception("device %s: event sink failed for %s", self._device_id, event.name)

    def emit(self, event: NetworkEvent | None) -> None:
        """Deliver an event from the client thread and wait for the sink (ordered)."""
        if event is None:
            return
        loop = self._loop
        if loop is None or loop.is_closed():
            logger.error("device %s: no event loop, %s not delivered", self._device_id, event.name)
            return
        if threading.get_ident() == self._loop_thread:
            self.track(loop.create_task(self.deliver(event)))
            return
        try:
            future = asyncio.run_coroutine_threadsafe(self.deliver(event), loop)
        except RuntimeError:
            logger.error("device %s: event loop closed, %s not delivered", self._device_id, event.name)
            return
        try:
            future.result(timeout=self._sink_timeout)
        except TimeoutError:
            logger.error(
                "device %s: sink still busy with %s after %g s",
                self._device_id,
                event.name,
                self._sink_timeout,
            )

    def on_loop(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` on the loop, from any thread (dropped once the loop is gone)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(callback, *args)

    def track(self, future: asyncio.Future[Any]) -> None:
        """Keep a task of the session alive until it is done."""
        self._tasks.add(future)
        future.add_done_callback(self._tasks.discard)


class Terminate(Protocol):
    def __call__(self, runner: ClientRunner, *, delete_credentials: bool) -> None: ...


class NetworkHandlers:
    """The handlers of one session: they change its link's state and emit through its relay.

    ``terminate(runner, delete_credentials=)`` asks the session to retire a run the network
    ended (scheduled on the loop, not awaited); ``qr_shown(seq, expires_at)`` tells it, on the
    loop, that a QR code is shown (it wakes ``pair_phone`` and times the rotation out).
    """

    def __init__(
        self,
        link: DeviceLink,
        relay: EventRelay,
        *,
        terminate: Terminate,
        qr_shown: Callable[[int, float], None],
    ) -> None:
        self._link = link
        self._device_id = link.device_id
        self._relay = relay
        self._terminate = terminate
        self._qr_shown = qr_shown

    # --- registration -------------------------------------------------------------------

    def bind(self, client: NewClient, runner: ClientRunner) -> None:
        """Register every handler on the client; call before each ``connect()``."""
        client.event.qr(self._guarded(runner, "qr", self._on_qr))
        client._NewClient__onLoginStatus = self._guarded(runner, "login_status", self._on_login_status)
        for event_type, mapper in MAPPED.items():
            client.event(event_type)(self._guarded(runner, event_type.__name__, self._mapper(mapper)))
        # The session's own handlers last: one handler per type, so they replace a mapper for
        # the classes that end a connection (ConnectFailureEv, StreamErrorEv).
        own: dict[type, Callable[[ClientRunner, Any], None]] = {
            PairStatusEv: self._on_pair_status,
            ConnectedEv: self._on_connected,
            DisconnectedEv: self._on_disconnected,
            LoggedOutEv: self._on_logged_out,
            StreamReplacedEv: self._on_stream_replaced,
            TemporaryBanEv: self._on_temporary_ban,
            ClientOutdatedEv: self._on_client_outdated,
            ConnectFailureEv: self._on_connect_failure,
            StreamErrorEv: self._on_stream_error,
        }
        for event_type, handler in own.items():
            client.event(event_type)(self._guarded(runner, event_type.__name__, handler))

    def _mapper(self, mapper: Mapper) -> Callable[[ClientRunner, Any], None]:
        def handle(runner: ClientRunner, ev: Any) -> None:
            if isinstance(ev, MessageEv) and events.is_poll_vote(ev):
                self._relay.emit(self._poll_vote(runner, ev))
                return
            if isinstance(ev, CallOfferEv | CallOfferNoticeEv):
                self._link.call_offered(ev.basicCallMeta)
            event = mapper(self._link.context(), ev)
            if event is not None and event.name == EventName.MESSAGE_RECEIVED and isinstance(ev, MessageEv):
                self._link.recent.received(event.data)  # what a reply to it will quote
                event = with_media(self._link, event, ev.Message)  # waits: the device's order holds
            self._relay.emit(event)

        return handle

    def _poll_vote(self, runner: ClientRunner, ev: MessageEv) -> NetworkEvent | None:
        """``poll.vote``: the vote decrypted by whatsmeow with the poll's secret (kept in its
        store when the poll was sent or received), its options named from the polls this
        session remembers; None (logged) when it cannot be decrypted.

        Only a logged-in session decrypts: on a client whose store has no account,
        ``decrypt_poll_vote`` aborts the process (a nil dereference in whatsmeow's
        ``decryptMsgSecret``, seen on neonize 0.5.2)."""
        if self._link.own_jid() is None:
            logger.warning("device %s: poll vote on a session not logged in ignored", self._device_id)
            return None
        try:
            vote = runner.client.decrypt_poll_vote(ev)
        except Exception as error:  # the library's DecryptPollVoteError and whatever else it raises
            logger.warning("device %s: poll vote not decrypted: %s", self._device_id, error)
            return None
        poll_id = ev.Message.pollUpdateMessage.pollCreationMessageKey.ID
        options = self._link.recent.poll_options(poll_id)
        selected = list(vote.selectedOptions)
        return events.poll_vote(self._link.context(), ev, selected, list(options) if options else None)

    def _guarded(
        self, runner: ClientRunner, name: str, handler: Callable[[ClientRunner, Any], None]
    ) -> Callable[[Any, Any], None]:
        def guarded(_client: Any, payload: Any) -> None:
            runner.mark_started()
            if runner is not self._link.runner:
                logger.debug("device %s: %s from a finished client run ignored", self._device_id, name)
                return
            try:
                handler(runner, payload)
            except Exception:
                logger.exception("device %s: neonize %s handler failed", self._device_id, name)

        return guarded

    # --- pairing ------------------------------------------------------------------------

    def _on_qr(self, runner: ClientRunner, data: Any) -> None:
        code = _c_string(data)
        now = time.time()
        with self._link.mutex:
            if runner.stopping or self._link.account is not None:
                return
            timings = self._link.timings
            expires_at = now + (timings.first_qr_ttl if self._link.qr_count == 0 else timings.next_qr_ttl)
            self._link.qr_count += 1
            self._link.qr_seq += 1
            seq = self._link.qr_seq
            self._link.qr = (code, expires_at)
            self._link.state = SessionState.PAIRING
        self._relay.on_loop(self._qr_shown, seq, expires_at)
        self._relay.emit(payloads.qr_generated(self._device_id, code, expires_at))

    def _on_login_status(self, runner: ClientRunner, status: Any) -> None:
        text = _c_string(status)
        logger.info("device %s: pairing status %s", self._device_id, text)
        if text == "success":
            with self._link.mutex:
                self._link.qr = None
                self._link.qr_seq += 1
        elif text == "timeout":
            self._end_pairing(runner, "qr_timeout", "the QR code expired before it was scanned")
        elif text.startswith("err") or text == "error":
            self._end_pairing(runner, text.replace("-", "_"), f"pairing failed: {text}")

    def _end_pairing(self, runner: ClientRunner, reason: str, error: str) -> None:
        event = self._link.end_pairing(runner, reason, error)
        if event is not None:
            self._relay.emit(event)
            self._terminate(runner, delete_credentials=False)

    def _on_pair_status(self, _runner: ClientRunner, ev: PairStatusEv) -> None:
        if ev.Status != PairStatusEv.SUCCESS:
            self._relay.emit(payloads.pair_error(self._device_id, "pair_error", ev.Error or "pairing failed"))
            return
        account = JID()
        account.CopyFrom(ev.ID)
        self._link.store.save_jid(account, now=time.time())
        with self._link.mutex:
            self._link.account = account
            self._link.qr = None
            self._link.qr_seq += 1
            ctx = self._link.context()
        self._relay.emit(events.pair_success(ctx, ev))

    # --- connection ---------------------------------------------------------------------

    def _on_connected(self, runner: ClientRunner, _ev: ConnectedEv) -> None:
        if runner.stopping:
            return
        with self._link.mutex:
            self._link.state = SessionState.CONNECTED
            self._link.qr = None
            self._link.qr_seq += 1
            unknown = self._link.account is None
        if unknown:
            try:
                self._recover_account(runner)
            except Exception:
                logger.exception("device %s: cannot read the account JID from the client", self._device_id)
        ctx = self._link.context()
        self._relay.emit(payloads.device_connected(ctx.device_id, ctx.own_jid))

    def _recover_account(self, runner: ClientRunner) -> None:
        """Read the account JID from the connected client when the sidecar did not have it."""
        with self._link.gate.shared():
            device = runner.client.get_me()  # safe: the client is connected right now
        if device.HasField("JID") and device.JID.User:
            account = JID()
            account.CopyFrom(device.JID)
            self._link.store.save_jid(account, now=time.time())
            with self._link.mutex:
                self._link.account = account

    def _on_disconnected(self, runner: ClientRunner, _ev: DisconnectedEv) -> None:
        with self._link.mutex:
            if runner.stopping or self._link.state is not SessionState.CONNECTED:
                return
            self._link.state = SessionState.DISCONNECTED
        self._relay.emit(payloads.device_disconnected(self._device_id, "connection_lost"))

    def _on_logged_out(self, runner: ClientRunner, ev: LoggedOutEv) -> None:
        self._logged_out(runner, events.logged_out_reason(ev))

    def _logged_out(self, runner: ClientRunner, reason: str) -> None:
        if runner.stopping:
            return
        with self._link.mutex:
            self._link.state = SessionState.LOGGED_OUT
            self._link.account = None
            self._link.qr = None
        self._link.store.sidecar_path.unlink(missing_ok=True)  # whatsmeow already dropped the keys
        self._relay.emit(payloads.device_logged_out(self._device_id, reason))
        self._terminate(runner, delete_credentials=True)

    def _on_stream_replaced(self, runner: ClientRunner, _ev: StreamReplacedEv) -> None:
        self._end_connection(runner, payloads.stream_replaced(self._device_id), "stream_replaced")

    def _on_temporary_ban(self, runner: ClientRunner, ev: TemporaryBanEv) -> None:
        self._end_connection(runner, events.temporary_ban(self._link.context(), ev), "temporary_ban")

    def _on_client_outdated(self, runner: ClientRunner, _ev: ClientOutdatedEv) -> None:
        self._outdated(runner)

    def _outdated(self, runner: ClientRunner) -> None:
        message = "the network refuses this client version; neonize needs an update"
        event = payloads.connection_failure(self._device_id, "client_outdated", message, permanent=True)
        self._end_connection(runner, event, "client_outdated")

    def _on_connect_failure(self, runner: ClientRunner, ev: ConnectFailureEv) -> None:
        """whatsmeow's ConnectFailure: sent only for failures it does not retry by itself."""
        code = events.enum_name(ev, "Reason") or "unknown"
        if code in LOGGED_OUT_CODES:
            self._logged_out(runner, code)
        elif code == "temp_banned":
            ban = NetworkEvent(
                name=EventName.CONNECTION_TEMPORARY_BAN,
                data={
                    "device_id": self._device_id,
                    "code": code,
                    "expire_seconds": None,
                    "expires_at": None,
                },
            )
            self._end_connection(runner, ban, "temporary_ban")
        elif code == "client_outdated":
            self._outdated(runner)
        else:
            message = f"{code}: {ev.Message}" if ev.Message else code
            event = payloads.connection_failure(self._device_id, "connect_failure", message)
            self._end_connection(runner, event, code)

    def _on_stream_error(self, runner: ClientRunner, ev: StreamErrorEv) -> None:
        message = f"stream error {ev.Code}".strip()
        event = payloads.connection_failure(self._device_id, "stream_error", message)
        self._end_connection(runner, event, "stream_error")

    def _end_connection(self, runner: ClientRunner, event: NetworkEvent, reason: str) -> None:
        """A condition after which whatsmeow does not reconnect: report it and stop the client."""
        if runner.stopping:
            return
        with self._link.mutex:
            was_connected = self._link.state is SessionState.CONNECTED
            self._link.state = SessionState.DISCONNECTED if self._link.account else SessionState.NOT_READY
            self._link.qr = None
        self._relay.emit(event)
        if was_connected:
            self._relay.emit(payloads.device_disconnected(self._device_id, reason))
        self._terminate(runner, delete_credentials=False)

    # --- end of the client run ----------------------------------------------------------

    def on_runner_exit(self, runner: ClientRunner, error: BaseException | None) -> None:
        """``connect()`` returned on the runner thread; unexpected unless stop() asked."""
        if runner.stopping:
            if error is not None:
                logger.debug("device %s: connect() ended after stop: %s", self._device_id, error)
            return
        with self._link.mutex:
            if runner is not self._link.runner:
                return
            was_connected = self._link.state is SessionState.CONNECTED
            self._link.state = SessionState.DISCONNECTED if self._link.account else SessionState.NOT_READY
            self._link.qr = None
            ctx = self._link.context()
        reason, message = exit_reason(error)
        logger.info("device %s: neonize attempt ended (%s): %s", self._device_id, reason, message)
        self._relay.emit(payloads.connection_failure(ctx.device_id, reason, message))
        if was_connected:
            self._relay.emit(payloads.device_disconnected(self._device_id, reason))
        self._terminate(runner, delete_credentials=False)
