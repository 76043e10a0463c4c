"""What every command handler shares: replies, forwarding, and the steps of taking, ending
or refusing a device, written once here so a handler holds only what its command does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from gateway.bus import Command, DeviceSnapshot, Reply
from gateway.bus.contracts import CommandResult, Done
from gateway.failures.kinds import ErrorKind
from session_host import records
from session_host.config import READY_WAIT_SECONDS
from session_host.device_tenure import OwnedDevice, session_snapshot
from session_host.network.port import NetworkError, SessionState
from session_host.ownership import Ownership, RecordOnEnd

NOT_LOGGED_IN = "the device is not logged in"
HOST_FULL = (
    "this session host runs as many devices as it may (MAX_SESSIONS); retry: another host may have room"
)


@dataclass(frozen=True)
class Forward:
    """The command belongs to the host whose queue this is."""

    queue_url: str


@dataclass(frozen=True)
class Later:
    """A reply that is awaited after the device's lock is let go: for a handler that waits
    for something slow (a send's dispatch) without holding up the device's other commands."""

    reply: Awaitable[Reply[Any]]
    replied: Callable[[], None] | None = None
    """Called once the reply has left (or could not): work that may wait for it goes then."""


Outcome = Reply[Any] | Forward | Later | None
"""A reply to send, a host to forward to, a reply to await without the device's lock, or
None: dropped unexecuted (deadline passed)."""

Taken = Callable[["Host", Command[Any], OwnedDevice, bool], Awaitable[Reply[Any]]]
"""What a command does with a device it has just taken; the flag says whether the device's
record was claimed (it exists)."""


def ok(
    command: Command[Any], device: DeviceSnapshot | None, result: CommandResult | None = None
) -> Reply[Any]:
    """A success; ``result`` is the command's contract's (None: :class:`Done`, for a command
    that answers only the device's state)."""
    return Reply.success(command, Done() if result is None else result, device)


def failed(
    command: Command[Any],
    kind: ErrorKind,
    message: str,
    device: DeviceSnapshot | None = None,
    *,
    code: str | None = None,
) -> Reply[Any]:
    return Reply.failure(command, kind, message, device, code=code)


class Host:
    """The session host as command handlers see it: its tenures (:attr:`own`) and the steps
    several commands take."""

    def __init__(self, ownership: Ownership) -> None:
        self.own = ownership

    async def to_holder(self, command: Command[Any]) -> Forward | None:
        """Where to forward a command for a device another live host runs, if one does."""
        holder = await self.own.holder(command.device_id)
        if holder is not None and holder.owner_queue_url:
            return Forward(holder.owner_queue_url)
        return None

    async def held_elsewhere(self, command: Command[Any]) -> Forward | Reply[Any]:
        """The device's lease is another host's: forward there, or fail if it cannot be reached."""
        if forward := await self.to_holder(command):
            return forward
        return failed(command, ErrorKind.HOST_ERROR, "the device is held by a host that cannot be reached")

    async def take(
        self,
        command: Command[Any],
        how: records.Claim,
        then: Taken,
        *,
        missing_ok: bool = False,
        stays: bool = False,
    ) -> Outcome:
        """Take a device no host runs (lease, session, claim on its record), then run ``then``.

        A device whose record cannot be claimed does not exist: NOT_FOUND, unless
        ``missing_ok``. A take whose session ``stays`` (connect, reconnect) is refused by a full
        host (HOST_FULL: another host may have room). If ``then`` fails, the tenure it was given
        never outlives it.
        """
        own = self.own
        if stays and own.full:
            return failed(command, ErrorKind.HOST_FULL, HOST_FULL)
        lease = await own.acquire(command.tenant_id, command.device_id)
        if lease is None:
            return await self.held_elsewhere(command)
        owned = own.open(command.tenant_id, command.device_id, lease)
        try:
            claimed = await own.claim(owned, how)
            if not claimed and not missing_ok:
                await own.retire(owned, RecordOnEnd.NOTHING)
                return failed(command, ErrorKind.NOT_FOUND, "the device does not exist")
            return await then(self, command, owned, claimed)
        except Exception:
            if owned.active:
                await own.retire(owned, RecordOnEnd.RELEASE_ONLY)
            raise

    async def end(
        self, command: Command[Any], owned: OwnedDevice, action: Callable[[], Awaitable[None]]
    ) -> Reply[Any]:
        """End the session with ``action`` and let the device go; a network failure leaves
        the session running as it was."""
        owned.ending = True
        try:
            await action()
        except NetworkError:
            owned.ending = False
            raise
        return ok(command, await self.own.retire(owned, RecordOnEnd.STOP_WANTING))


async def needs_a_session(host: Host, command: Command[Any]) -> Outcome:
    """The default for a device no session on this host runs: commands that only a running
    session serves go to the host that runs it, and never start one."""
    if forward := await host.to_holder(command):
        return forward
    return failed(command, ErrorKind.NOT_RUNNING, "no session runs this device; connect it first")


async def refuse_if_paired(command: Command[Any], owned: OwnedDevice) -> Reply[Any] | None:
    """Pairing commands wait (briefly) for a session that is just starting to show its first
    QR code or to resume; a paired device is refused."""
    session = owned.session
    await owned.wait_until(
        lambda: session.jid is not None or session.current_qr is not None, READY_WAIT_SECONDS
    )
    if session.jid is not None:
        return failed(command, ErrorKind.ALREADY_LOGGED_IN, "the device is already paired")
    return None


def refuse_unless_connected(command: Command[Any], owned: OwnedDevice) -> Reply[Any] | None:
    """Operations on the network (receipts, sends) need a connected session."""
    session = owned.session
    if session.state is SessionState.CONNECTED:
        return None
    message = f"the device is not connected (status {session.state.value})"
    return failed(command, ErrorKind.NOT_CONNECTED, message, session_snapshot(session))
