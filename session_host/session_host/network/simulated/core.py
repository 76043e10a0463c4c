"""The network as sessions see it: connections, pairing windows, faults, and :meth:`NetworkCore.device`;
and each session's :class:`DeviceLink` to it.

All state sits in one :class:`~.world.World` guarded by one lock. A session's operations act
as its account inside :meth:`NetworkCore.device` (the lock held, the connection checked);
:class:`~.network.SimulatedNetwork` adds the other side (phones, the control API).

A session's lifecycle and its operation families share one :class:`DeviceLink`. Every
operation goes the same way: the session must be connected (``NOT_CONNECTED``, nothing
sent, no fault used up), its inputs are checked (``INVALID``), then a fault injected for it
may fail it (``POST /_simulator/faults {operation: ...}``: the port method's name, or for
groups the bus command that runs it), then the device's account acts on the network. The
connection is read again after the fault, as a ``timeout`` fault waits meanwhile.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from gateway import clock as stack_clock
from gateway.failures.codes import ErrorCode
from gateway.failures.kinds import ErrorKind

from ..port import REAL_EDIT_WINDOW_SECONDS, REAL_REVOKE_WINDOW_SECONDS, NetworkError, RateLimit, SessionState
from .group_records import GroupChange, GroupError
from .model import (
    DIAL_OPERATION,
    FAULT_KINDS,
    OPERATIONS,
    SEND_OPERATIONS,
    Account,
    AnswerFault,
    Connection,
    ControlError,
    Deliver,
    DialFault,
    Fault,
    new_connection_id,
    new_pair_code,
    new_qr_code,
    rate_limit_of,
)
from .persistence import read_json, write_json
from .reachout import NewChatCap
from .world import World

REAL_QR_LIFETIMES = (60.0, 20.0, 20.0, 20.0, 20.0, 20.0)
"""The first QR lives 60 s, then five more of 20 s each: about 160 s to scan."""

REAL_REVOKE_WINDOW = REAL_REVOKE_WINDOW_SECONDS
"""The real network lets a sender delete for everyone for 60 hours."""


def revoke_window_from_env() -> float:
    """``SIMULATOR_REVOKE_WINDOW_SECONDS``, else the real network's 60 hours."""
    return _window_from_env("SIMULATOR_REVOKE_WINDOW_SECONDS", REAL_REVOKE_WINDOW)


def edit_window_from_env() -> float:
    """``SIMULATOR_EDIT_WINDOW_SECONDS``, else the real network's 15 minutes."""
    return _window_from_env("SIMULATOR_EDIT_WINDOW_SECONDS", REAL_EDIT_WINDOW_SECONDS)


def _window_from_env(variable: str, default: float) -> float:
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    window = float(raw)
    if window < 0:
        raise ValueError(f"{variable} must not be negative")
    return window


class NetworkCore:
    """Accounts, linked devices, live connections, queued traffic and injected faults.

    Parameters
    ----------
    state_path:
        When set, accounts, device links and queued traffic are saved there as JSON after
        every change and loaded at start, so paired devices survive a restart.
    qr_lifetimes:
        Lifetime of each QR code a pairing session shows, in order; the pairing window ends
        (``qr_timeout``) after the last one.
    reconnect_delay:
        Wait before a dropped session tries once to reconnect by itself; if that try fails,
        the session host's supervisor retries with its backoff.
    timeout_fault_delay:
        How long an operation hit by a ``timeout`` fault waits before it fails.
    revoke_window:
        How long after sending a message its sender may delete it for everyone (seconds);
        None reads ``SIMULATOR_REVOKE_WINDOW_SECONDS`` (default 60 hours, as the real network).
    edit_window:
        How long after sending a text its sender may edit it (seconds); None reads
        ``SIMULATOR_EDIT_WINDOW_SECONDS`` (default 15 minutes, as the real network).
    clock:
        The network's time (epoch seconds) for when its rate refusals end: a fault's
        ``retry_after`` and the new-chat caps' locks (:mod:`.reachout`). By default the
        stack's clock (:mod:`gateway.clock`), which ``PUT /_simulator/clock`` moves, so a
        refusal's end and the pause the dispatcher keeps for it read the same time.
    """

    def __init__(
        self,
        state_path: Path | None = None,
        *,
        qr_lifetimes: Sequence[float] = REAL_QR_LIFETIMES,
        reconnect_delay: float = 1.0,
        timeout_fault_delay: float = 2.0,
        revoke_window: float | None = None,
        edit_window: float | None = None,
        clock: Callable[[], float] = stack_clock.now,
    ) -> None:
        if not qr_lifetimes:
            raise ValueError("qr_lifetimes needs at least one lifetime")
        self.qr_lifetimes = tuple(qr_lifetimes)
        self.reconnect_delay = reconnect_delay
        self.timeout_fault_delay = timeout_fault_delay
        self.revoke_window = revoke_window_from_env() if revoke_window is None else revoke_window
        self.edit_window = edit_window_from_env() if edit_window is None else edit_window
        self._lock = threading.Lock()
        self._world = World()
        self.clock = clock
        self._faults: list[Fault] = []
        self._caps: dict[str, NewChatCap] = {}  # by device id (not saved, as faults are not)
        self._max_conns: dict[str, int] = {}
        self._dialed_through: dict[str, str | None] = {}  # each device's last connection's proxy
        self._state_path = Path(state_path) if state_path is not None else None
        if self._state_path is not None:
            data = read_json(self._state_path)
            if data is not None:
                self._world.load_json(data)

    def _save(self) -> None:
        if self._state_path is not None:
            write_json(self._state_path, self._world.to_json(), durable=False)

    # --- faults -----------------------------------------------------------------------

    def inject_fault(
        self,
        operation: str,
        error: str,
        count: int = 1,
        device_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        """The next ``count`` calls of ``operation`` (of ``device_id``, or any device) fail;
        a rate refusal says to wait ``retry_after`` seconds from when it fails (None: it
        does not say)."""
        if operation not in OPERATIONS:
            raise ValueError(f"unknown operation {operation!r}; one of {sorted(OPERATIONS)}")
        if error not in FAULT_KINDS:
            raise ValueError(f"unknown error {error!r}; one of {sorted(FAULT_KINDS)}")
        if count < 1:
            raise ValueError("count must be at least 1")
        if isinstance(FAULT_KINDS[error], DialFault) and operation != DIAL_OPERATION:
            raise ValueError(f"{error!r} applies to the {DIAL_OPERATION!r} operation only")
        if isinstance(FAULT_KINDS[error], AnswerFault | RateLimit) and operation not in SEND_OPERATIONS:
            raise ValueError(f"{error!r} applies to the send operations only: {sorted(SEND_OPERATIONS)}")
        if retry_after is not None and (rate_limit_of(FAULT_KINDS[error]) is None or retry_after < 0):
            raise ValueError("retry_after is a rate refusal's wait, in seconds (0 or more)")
        with self._lock:
            self._faults.append(Fault(operation, FAULT_KINDS[error], count, device_id, retry_after))

    def take_fault(self, operation: str, device_id: str) -> Fault | None:
        """Consume one pending fault for this call, if any; the session then fails the call."""
        with self._lock:
            for fault in self._faults:
                if fault.matches(operation, device_id):
                    fault.remaining -= 1
                    self._faults = [f for f in self._faults if f.remaining > 0]
                    return fault
        return None

    def pending_faults(self) -> list[dict[str, Any]]:
        with self._lock:
            return [
                {
                    "operation": f.operation,
                    "error": str(f.kind),
                    "count": f.remaining,
                    "device_id": f.device_id,
                    "retry_after_seconds": f.retry_after,
                }
                for f in self._faults
            ]

    # --- the new-chat cap (:mod:`.reachout`) -------------------------------------------

    def set_new_chat_cap(self, device_id: str, limit: int, lock_seconds: float) -> dict[str, Any]:
        """Cap the device's new chats from now on (replacing a cap it had); its view."""
        with self._lock:
            self._known_device(device_id)
            self._caps[device_id] = NewChatCap(limit, lock_seconds)
            return self._cap_view(device_id)

    def lift_new_chat_cap(self, device_id: str) -> dict[str, Any]:
        """The device's new chats are no longer capped (also when they were not)."""
        with self._lock:
            self._known_device(device_id)
            self._caps.pop(device_id, None)
            return self._cap_view(device_id)

    def new_chat_cap(self, device_id: str) -> dict[str, Any]:
        with self._lock:
            self._known_device(device_id)
            return self._cap_view(device_id)

    def _known_device(self, device_id: str) -> None:
        """404 ``DEVICE_NOT_FOUND`` for a device the network never saw (never connected, no link)."""
        linked = any(link.device_id == device_id for link in self._world.links.values())
        if not linked and device_id not in self._dialed_through:
            raise ControlError(404, ErrorCode.DEVICE_NOT_FOUND, f"the network never saw device {device_id}")

    def _cap_view(self, device_id: str) -> dict[str, Any]:
        cap = self._caps.get(device_id)
        return {"device_id": device_id, "new_chat_cap": cap.view(self.clock()) if cap else None}

    def reach_out(self, turn: DeviceTurn, chat_jid: str) -> None:
        """A connected device's send to the one-to-one chat ``chat_jid``, in its turn: refused
        for rate (463 reachout timelock, until the lock ends) when the chat is new to its
        account and the device's cap (if any) admits no more new chats."""
        cap = self._caps.get(turn.conn.device_id)
        if cap is None or turn.world.knows_chat(turn.account, chat_jid):
            return
        locked_until = cap.admit(chat_jid, self.clock())
        if locked_until is not None:
            raise NetworkError.rate_limited(
                f"the network refuses new chats of device {turn.conn.device_id} for now "
                "(reachout timelock, simulated new-chat cap)",
                RateLimit.REACHOUT_TIMELOCK,
                locked_until,
            )

    # --- connections (called by sessions) ---------------------------------------------

    def _open(self, conn: Connection) -> None:
        self._world.conns[conn.conn_id] = conn
        count = len(self._world.conns_of_device(conn.device_id))
        self._max_conns[conn.device_id] = max(self._max_conns.get(conn.device_id, 0), count)
        self._dialed_through[conn.device_id] = conn.proxy_url

    def start_pairing(self, device_id: str, deliver: Deliver, proxy_url: str | None = None) -> str:
        """An unpaired session connects (through ``proxy_url``, if any) to show QR codes;
        returns its connection id."""
        with self._lock:
            conn = Connection(new_connection_id(), device_id, deliver, proxy_url=proxy_url)
            self._open(conn)
            return conn.conn_id

    def show_qr(self, conn_id: str) -> str | None:
        """A fresh QR code for a pairing connection; None once it paired or is gone."""
        with self._lock:
            conn = self._world.conns.get(conn_id)
            if conn is None or conn.device_key is not None:
                return None
            conn.qr = new_qr_code()
            return conn.qr

    def request_pair_code(self, conn_id: str, phone: str) -> str:
        with self._lock:
            conn = self._world.conns.get(conn_id)
            if conn is None or conn.device_key is not None:
                raise NetworkError(ErrorKind.NOT_CONNECTED, "the session is not pairing")
            conn.pair_code = new_pair_code()
            conn.pair_phone = phone
            return conn.pair_code

    def end_pairing(self, conn_id: str) -> bool:
        """The QR window closed: True if the connection was still unpaired (it is now cut)."""
        with self._lock:
            conn = self._world.conns.get(conn_id)
            if conn is None or conn.device_key is not None:
                return False
            del self._world.conns[conn_id]
            return True

    def resume(
        self, device_id: str, credentials: dict[str, str], deliver: Deliver, proxy_url: str | None = None
    ) -> str | None:
        """Connect with stored credentials (through ``proxy_url``, if any); None when the
        network no longer knows the key.

        One connection per linked device: an older connection with the same key gets
        ``replaced`` and is cut. Traffic queued while the device was away follows at once.
        """
        with self._lock:
            link = self._world.links.get(credentials.get("device_key", ""))
            if link is None or link.jid != credentials.get("jid"):
                return None
            conn = Connection(
                new_connection_id(), device_id, deliver, link.device_key, link.jid, proxy_url=proxy_url
            )
            self._open(conn)
            for other in [c for c in self._world.conns.values() if c.device_key == link.device_key]:
                if other is not conn:
                    del self._world.conns[other.conn_id]
                    self._world.signal(other, "replaced", {})
            if self._world.flush(conn):
                self._save()
            return conn.conn_id

    def leave(self, conn_id: str) -> dict[str, str] | None:
        """The connection ends without a word (close, crash); its credentials if it had paired."""
        with self._lock:
            conn = self._world.conns.pop(conn_id, None)
            if conn is None or conn.device_key is None or conn.device_key not in self._world.links:
                return None
            return {"jid": conn.jid or "", "device_key": conn.device_key}

    def logout(self, conn_id: str, device_key: str) -> None:
        """The connected device unlinks itself: its key is revoked and its connection closed."""
        with self._lock:
            self._world.conns.pop(conn_id, None)
            if self._world.forget_link(device_key) is not None:
                self._save()

    def _live(self, conn_id: str) -> tuple[Connection, Account]:
        conn = self._world.conns.get(conn_id)
        if conn is None or conn.jid is None:
            raise NetworkError(ErrorKind.NOT_CONNECTED, "the connection is closed")
        account = self._world.account_of_jid(conn.jid)
        assert account is not None
        return conn, account

    # --- what connected devices do (called by their sessions' operations) -------------

    @contextmanager
    def device(self, conn_id: str) -> Iterator[DeviceTurn]:
        """Act as a connected device's account, holding the network's lock.

        ``NOT_CONNECTED`` when the connection is gone; a refusal of the group rules
        (:class:`~.group_records.GroupError`) is ``NetworkError.refused`` with its code. The
        world is saved after a turn that :meth:`Turn.changed` it.
        """
        with self._lock:
            conn, account = self._live(conn_id)
            turn = DeviceTurn(self._world, account, conn=conn)
            try:
                yield turn
            except GroupError as error:
                raise NetworkError.refused(error.code, str(error)) from error
            if turn.dirty:
                self._save()

    # --- what phones do (the control API's side) ----------------------------------------

    @contextmanager
    def phone(self, phone: str) -> Iterator[Turn]:
        """Act as the account of ``phone`` (404 ``ACCOUNT_NOT_FOUND`` if it has none), holding
        the network's lock; refusals of the group rules go up as they are. The world is saved
        after a turn that :meth:`Turn.changed` it."""
        with self._lock:
            account = self._world.accounts.get(phone)
            if account is None:
                raise ControlError(404, ErrorCode.ACCOUNT_NOT_FOUND, f"no account for phone {phone}")
            turn = Turn(self._world, account)
            yield turn
            if turn.dirty:
                self._save()

    @contextmanager
    def reading(self) -> Iterator[World]:
        """The world, to read under the network's lock (inspection, the control API)."""
        with self._lock:
            yield self._world

    def media_bytes(self, sha256: str) -> bytes:
        """The bytes of media the network carried (empty when it never did)."""
        with self._lock:
            return self._world.media.get(sha256, b"")


@dataclass
class Turn:
    """One act of an account on the network, under its lock (:meth:`NetworkCore.phone`)."""

    world: World
    account: Account
    dirty: bool = False

    def changed(self, change: GroupChange | None = None) -> None:
        """Keep what this turn changed; a group's change is told to its members' devices."""
        if change is not None:
            self.world.group_changed(change)
        self.dirty = True


@dataclass
class DeviceTurn(Turn):
    """One act of a connected device as its account (:meth:`NetworkCore.device`)."""

    conn: Connection = field(kw_only=True)


class DeviceLink:
    """The device's connection as its session keeps it: ``state`` and ``conn`` (the network's
    connection id, while there is one) are the session's to change, on its loop."""

    def __init__(self, network: NetworkCore, device_id: str, state: SessionState) -> None:
        self.network = network
        self.device_id = device_id
        self.state = state
        self.conn: str | None = None

    def connection(self) -> str:
        """The connection of a connected session; ``NOT_CONNECTED`` otherwise."""
        if self.state is not SessionState.CONNECTED or self.conn is None:
            raise NetworkError(ErrorKind.NOT_CONNECTED, f"device {self.device_id} is {self.state.value}")
        return self.conn

    async def fault(self, operation: str) -> bool:
        """Apply a fault pending for this call: raise its error (nothing reaches the network),
        or, for a lost answer (only ever queued for sends), return True: the caller carries
        the operation out, then fails it with :meth:`ack_lost`. A rate refusal names its limit,
        and until when when the fault says (``retry_after_seconds``: from now)."""
        fault = self.network.take_fault(operation, self.device_id)
        if fault is None:
            return False
        kind = fault.kind
        limit = rate_limit_of(kind)
        if limit is not None:
            retry_at = None if fault.retry_after is None else self.network.clock() + fault.retry_after
            raise NetworkError.rate_limited(f"simulated {kind.value} fault on {operation}", limit, retry_at)
        assert not isinstance(kind, RateLimit)  # every rate fault was raised just above
        if kind is AnswerFault.LOST:
            return True
        if isinstance(kind, DialFault):  # only ever queued for connect (checked on injection)
            raise NetworkError(ErrorKind.NETWORK, f"simulated {kind} fault on {operation}")
        if kind is ErrorKind.TIMEOUT:
            await asyncio.sleep(self.network.timeout_fault_delay)
        raise NetworkError(kind, f"simulated {kind.value} fault on {operation}")

    async def ack_lost(self, operation: str) -> NoReturn:
        """The network has what ``operation`` sent, but its answer never comes: a timeout."""
        await asyncio.sleep(self.network.timeout_fault_delay)
        message = f"simulated ack_lost fault on {operation}: the network took it, no answer came"
        raise NetworkError(ErrorKind.TIMEOUT, message)
