"""Executing device commands: what each one does, on a device this host runs or on one it
does not.

The caller holds the device's lock, so commands of one device run one after the other.
Commands on a running session are answered from memory (``qr``, a ``connect`` that is a
no-op) or with only the network call they need. A device another live host runs is not
touched: the command is forwarded to that host's queue.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from gateway.bus import Command, CommandName, DeviceSnapshot, Reply
from gateway.bus.messages import ErrorKind
from gateway.observability import logger
from session_host import records
from session_host.config import READY_WAIT_SECONDS
from session_host.network.port import NetworkError, NetworkErrorKind, SessionState
from session_host.owned import OwnedDevice, session_snapshot
from session_host.ownership import Ownership, RecordOnEnd
from session_host.unlink import forget, unlink

NOT_LOGGED_IN = "the device is not logged in"
_NEED_A_SESSION = frozenset({CommandName.QR, CommandName.PAIR_PHONE, CommandName.MARK_READ})
"""Commands served only by a session that runs already; they never start one."""


@dataclass(frozen=True)
class Forward:
    """The command belongs to the host whose queue this is."""

    queue_url: str


Outcome = Reply | Forward | None
"""A reply to send, a host to forward to, or None: dropped unexecuted (deadline passed)."""


def ok(command: Command, device: DeviceSnapshot | None, result: dict[str, Any] | None = None) -> Reply:
    return Reply.success(command, result or {}, device)


def failed(command: Command, kind: str, message: str, device: DeviceSnapshot | None = None) -> Reply:
    return Reply.failure(command, kind, message, device)


class CommandExecutor:
    def __init__(self, ownership: Ownership) -> None:
        self._own = ownership

    async def execute(self, command: Command) -> Outcome:
        """Run ``command`` (the caller holds the device's lock)."""
        if command.expired():  # it waited behind another command of the device for too long
            return None
        owned = self._own.devices.get(command.device_id)
        try:
            if owned is not None:
                return await self._on_running(command, owned)
            return await self._on_idle(command)
        except NetworkError as error:
            owned = self._own.devices.get(command.device_id)
            return failed(
                command, error.kind.value, str(error), session_snapshot(owned.session) if owned else None
            )

    # --- a device this host runs ----------------------------------------------------------

    async def _on_running(self, command: Command, owned: OwnedDevice) -> Reply:
        session = owned.session
        name = command.name
        if name is CommandName.CONNECT:
            if session.state not in (SessionState.CONNECTED, SessionState.PAIRING):
                await session.connect()
            return ok(command, session_snapshot(session))
        if name is CommandName.QR:
            return await self._qr(command, owned)
        if name is CommandName.PAIR_PHONE:
            return await self._pair_phone(command, owned)
        if name is CommandName.MARK_READ:
            return await self._mark_read(command, owned)
        if name is CommandName.DISCONNECT:
            return await self._end(command, owned, session.disconnect)
        if name is CommandName.LOGOUT:
            if session.jid is None:
                return failed(
                    command, NetworkErrorKind.NOT_CONNECTED, NOT_LOGGED_IN, session_snapshot(session)
                )
            return await self._end(command, owned, lambda: unlink(owned))
        if name is CommandName.DELETE:
            owned.ending = True
            await forget(owned)
            return ok(command, await self._own.retire(owned, RecordOnEnd.STOP_WANTING))
        return failed(command, ErrorKind.HOST_ERROR, f"unknown command {name}")

    async def _end(
        self, command: Command, owned: OwnedDevice, action: Callable[[], Awaitable[None]]
    ) -> Reply:
        """End the session with ``action`` and let the device go; a network failure leaves
        the session running as it was."""
        owned.ending = True
        try:
            await action()
        except NetworkError:
            owned.ending = False
            raise
        return ok(command, await self._own.retire(owned, RecordOnEnd.STOP_WANTING))

    async def _qr(self, command: Command, owned: OwnedDevice) -> Reply:
        session = owned.session
        if refused := await _refuse_if_paired(command, owned):
            return refused
        qr = session.current_qr
        if qr is not None:
            return ok(command, session_snapshot(session), {"qr_code": qr[0], "expires_at": qr[1]})
        if session.state is SessionState.PAIRING:
            return failed(command, NetworkErrorKind.TIMEOUT, "the network has shown no QR code yet; retry")
        return failed(
            command,
            NetworkErrorKind.NOT_CONNECTED,
            "the device is not pairing; connect it first",
            session_snapshot(session),
        )

    async def _pair_phone(self, command: Command, owned: OwnedDevice) -> Reply:
        session = owned.session
        phone = command.args.get("phone")
        if not isinstance(phone, str) or not phone:
            return failed(command, NetworkErrorKind.INVALID, "phone is required")
        if refused := await _refuse_if_paired(command, owned):
            return refused
        code = await session.pair_phone(phone)
        return ok(command, session_snapshot(session), {"pair_code": code})

    async def _mark_read(self, command: Command, owned: OwnedDevice) -> Reply:
        """Read receipts for messages the device received; only a connected session sends them."""
        session = owned.session
        args = command.args
        chat, sender, ids = args.get("chat_jid"), args.get("sender_jid"), args.get("message_ids")
        if not (_text(chat) and _text(sender) and isinstance(ids, list) and ids and all(map(_text, ids))):
            return failed(
                command, NetworkErrorKind.INVALID, "chat_jid, sender_jid and message_ids are required"
            )
        if session.state is not SessionState.CONNECTED:
            message = f"the device is not connected (status {session.state.value})"
            return failed(command, NetworkErrorKind.NOT_CONNECTED, message, session_snapshot(session))
        await session.mark_read(chat, sender, ids)
        return ok(command, session_snapshot(session))

    # --- a device this host does not run -------------------------------------------------

    async def _on_idle(self, command: Command) -> Outcome:
        own = self._own
        if command.name in _NEED_A_SESSION:  # forward to the host that runs the device, if any
            if forward := await self._to_holder(command):
                return forward
            return failed(command, ErrorKind.NOT_RUNNING, "no session runs this device; connect it first")
        lease = await own.acquire(command.tenant_id, command.device_id)
        if lease is None:
            if forward := await self._to_holder(command):
                return forward
            return failed(
                command, ErrorKind.HOST_ERROR, "the device is held by a host that cannot be reached"
            )
        if command.name is CommandName.DISCONNECT:
            try:
                record = await own.aws(records.stop_wanting_idle, command.tenant_id, command.device_id)
            finally:
                await own.release(lease)
            return ok(command, records.record_snapshot(record) if record is not None else None)
        owned = own.open(command.tenant_id, command.device_id, lease)
        try:
            return await self._on_opened(command, owned)
        except Exception:
            if owned.active:  # a tenure never outlives the command that failed to start it
                await own.retire(owned, RecordOnEnd.RELEASE_ONLY)
            raise

    async def _to_holder(self, command: Command) -> Forward | None:
        """Where to forward a command for a device another live host runs, if one does."""
        holder = await self._own.holder(command.device_id)
        if holder is not None and holder.owner_queue_url:
            return Forward(holder.owner_queue_url)
        return None

    async def _on_opened(self, command: Command, owned: OwnedDevice) -> Reply:
        own = self._own
        how = records.Claim.CONNECT if command.name is CommandName.CONNECT else records.Claim.VISIT
        claimed = await own.claim(owned, how)
        if not claimed and command.name is not CommandName.DELETE:
            await own.retire(owned, RecordOnEnd.NOTHING)
            return failed(command, NetworkErrorKind.NOT_FOUND, "the device does not exist")
        if command.name is CommandName.CONNECT:
            return await self._start(command, owned)
        if command.name is CommandName.LOGOUT:
            return await self._logout_idle(command, owned)
        owned.ending = True  # DELETE
        await forget(owned)
        return ok(
            command, await own.retire(owned, RecordOnEnd.STOP_WANTING if claimed else RecordOnEnd.NOTHING)
        )

    async def _start(self, command: Command, owned: OwnedDevice) -> Reply:
        try:
            await owned.session.connect()
        except NetworkError as error:
            snapshot = await self._own.retire(owned, RecordOnEnd.STOP_WANTING)
            return failed(command, error.kind.value, str(error), snapshot)
        logger.info(
            "device session started", extra={"device_id": owned.device_id, "tenant_id": owned.tenant_id}
        )
        return ok(command, session_snapshot(owned.session))

    async def _logout_idle(self, command: Command, owned: OwnedDevice) -> Reply:
        """Logout of a device no host ran: connect it just to unlink it, then stop."""
        if owned.session.jid is None:
            snapshot = await self._own.retire(owned, RecordOnEnd.RELEASE_ONLY)
            return failed(command, NetworkErrorKind.NOT_CONNECTED, NOT_LOGGED_IN, snapshot)
        owned.ending = True
        try:
            await unlink(owned)
        except NetworkError as error:
            snapshot = await self._own.retire(owned, RecordOnEnd.HAND_BACK)
            return failed(command, error.kind.value, str(error), snapshot)
        return ok(command, await self._own.retire(owned, RecordOnEnd.STOP_WANTING))


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


async def _refuse_if_paired(command: Command, owned: OwnedDevice) -> Reply | None:
    """Pairing commands wait (briefly) for a session that is just starting to show its first
    QR code or to resume; a paired device is refused."""
    session = owned.session
    await owned.wait_until(
        lambda: session.jid is not None or session.current_qr is not None, READY_WAIT_SECONDS
    )
    if session.jid is not None:
        return failed(command, NetworkErrorKind.ALREADY_LOGGED_IN, "the device is already paired")
    return None
