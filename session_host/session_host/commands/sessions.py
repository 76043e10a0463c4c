"""Commands on a device's session itself: connect, reconnect, pairing (QR, pair code),
disconnect, logout and delete."""

from __future__ import annotations

from functools import partial
from typing import Any

from gateway.bus import Command, Reply, contracts
from gateway.bus.contracts import NoArgs
from gateway.bus.contracts.sessions import PairCode, PairPhoneArgs, QrCode
from gateway.failures.kinds import ErrorKind
from gateway.observability import logger
from session_host import records
from session_host.commands.registry import NOT_LOGGED_IN, Host, Outcome, failed, handles, ok, refuse_if_paired
from session_host.device_tenure import OwnedDevice, session_snapshot
from session_host.network.port import NetworkError, SessionState
from session_host.ownership import RecordOnEnd
from session_host.unlink import forget, unlink

# --- connect ----------------------------------------------------------------------------


async def _start(host: Host, command: Command[Any], owned: OwnedDevice, _claimed: bool) -> Reply[Any]:
    try:
        await owned.supervisor.start()  # a failed attempt is retried; only UNSUPPORTED raises
    except NetworkError as error:
        snapshot = await host.own.retire(owned, RecordOnEnd.STOP_WANTING)
        return failed(command, error.kind, str(error), snapshot, code=error.code)
    logger.info("device session started", extra={"device_id": owned.device_id, "tenant_id": owned.tenant_id})
    return ok(command, session_snapshot(owned.session))


async def _connect_idle(host: Host, command: Command[NoArgs]) -> Outcome:
    return await host.take(command, records.Claim.CONNECT, _start, stays=True)


@handles(contracts.CONNECT, when_idle=_connect_idle)
async def connect(_host: Host, command: Command[NoArgs], owned: OwnedDevice) -> Reply[Any]:
    """A no-op while the session runs or its supervisor is trying; otherwise a new attempt."""
    session = owned.session
    if session.state not in (SessionState.CONNECTED, SessionState.PAIRING) and not owned.supervisor.trying:
        await owned.supervisor.start()
    return ok(command, session_snapshot(session))


# --- reconnect --------------------------------------------------------------------------

_NOTHING_TO_RECONNECT = "the device is connected, or was never paired and is not dialing"


async def _reconnect_taken(
    host: Host, command: Command[Any], owned: OwnedDevice, _claimed: bool
) -> Reply[Any]:
    """A paired device no host runs (a permanent failure ended its tenure, or it was
    disconnected): wanted again, and the attempt starts now."""
    if owned.session.jid is None:
        snapshot = await host.own.retire(owned, RecordOnEnd.RELEASE_ONLY)
        return failed(command, ErrorKind.CONFLICT, _NOTHING_TO_RECONNECT, snapshot)
    if not await host.own.claim(owned, records.Claim.CONNECT):
        await host.own.retire(owned, RecordOnEnd.NOTHING)
        return failed(command, ErrorKind.NOT_FOUND, "the device does not exist")
    return await _reconnect_now(command, owned)


async def _reconnect_idle(host: Host, command: Command[NoArgs]) -> Outcome:
    return await host.take(command, records.Claim.VISIT, _reconnect_taken, stays=True)


@handles(contracts.RECONNECT, when_idle=_reconnect_idle)
async def reconnect(_host: Host, command: Command[NoArgs], owned: OwnedDevice) -> Reply[Any]:
    """The next attempt starts now, its backoff reset (``connection.manual_reconnect``)."""
    session = owned.session
    if session.state is SessionState.CONNECTED or (session.jid is None and not owned.supervisor.trying):
        return failed(command, ErrorKind.CONFLICT, _NOTHING_TO_RECONNECT, session_snapshot(session))
    return await _reconnect_now(command, owned)


async def _reconnect_now(command: Command[Any], owned: OwnedDevice) -> Reply[Any]:
    try:
        await owned.supervisor.reconnect_now()
    except NetworkError as error:
        return failed(command, error.kind, str(error), session_snapshot(owned.session), code=error.code)
    return ok(command, session_snapshot(owned.session))


# --- pairing ----------------------------------------------------------------------------


@handles(contracts.QR)
async def qr(_host: Host, command: Command[NoArgs], owned: OwnedDevice) -> Reply[Any]:
    """The QR code the pairing session shows now, answered from memory."""
    session = owned.session
    if refused := await refuse_if_paired(command, owned):
        return refused
    shown = session.current_qr
    if shown is not None:
        return ok(command, session_snapshot(session), QrCode(qr_code=shown[0], expires_at=shown[1]))
    if session.state is SessionState.PAIRING:
        return failed(command, ErrorKind.TIMEOUT, "the network has shown no QR code yet; retry")
    if owned.supervisor.trying:
        message = "the device is still reaching the network and has no QR code yet; retry (see last_error)"
        return failed(command, ErrorKind.TIMEOUT, message)
    return failed(
        command,
        ErrorKind.NOT_CONNECTED,
        "the device is not pairing; connect it first",
        session_snapshot(session),
    )


@handles(contracts.PAIR_PHONE)
async def pair_phone(_host: Host, command: Command[PairPhoneArgs], owned: OwnedDevice) -> Reply[Any]:
    """A pair code for ``args.phone`` (the adapter checks the number with gateway.jids)."""
    session = owned.session
    if refused := await refuse_if_paired(command, owned):
        return refused
    code = await session.pair_phone(command.args.phone)
    return ok(command, session_snapshot(session), PairCode(pair_code=code))


# --- disconnect -------------------------------------------------------------------------


async def _disconnect_idle(host: Host, command: Command[NoArgs]) -> Outcome:
    """Nothing runs: only the record stops wanting a connection (under the lease, so no host
    restores the device meanwhile)."""
    own = host.own
    lease = await own.acquire(command.tenant_id, command.device_id)
    if lease is None:
        return await host.held_elsewhere(command)
    try:
        record = await own.aws(records.stop_wanting_idle, command.tenant_id, command.device_id)
    finally:
        await own.release(lease)
    return ok(command, records.record_snapshot(record) if record is not None else None)


@handles(contracts.DISCONNECT, when_idle=_disconnect_idle)
async def disconnect(host: Host, command: Command[NoArgs], owned: OwnedDevice) -> Reply[Any]:
    """Close the connection and keep the login."""
    return await host.end(command, owned, owned.session.disconnect)


# --- logout -----------------------------------------------------------------------------


async def _logout_taken(host: Host, command: Command[Any], owned: OwnedDevice, _claimed: bool) -> Reply[Any]:
    """Logout of a device no host ran: connect it just to unlink it, then stop."""
    if owned.session.jid is None:
        snapshot = await host.own.retire(owned, RecordOnEnd.RELEASE_ONLY)
        return failed(command, ErrorKind.NOT_CONNECTED, NOT_LOGGED_IN, snapshot)
    owned.ending = True
    try:
        await unlink(owned)
    except NetworkError as error:
        snapshot = await host.own.retire(owned, RecordOnEnd.HAND_BACK)
        return failed(command, error.kind, str(error), snapshot, code=error.code)
    return ok(command, await host.own.retire(owned, RecordOnEnd.STOP_WANTING))


async def _logout_idle(host: Host, command: Command[NoArgs]) -> Outcome:
    return await host.take(command, records.Claim.VISIT, _logout_taken)


@handles(contracts.LOGOUT, when_idle=_logout_idle)
async def logout(host: Host, command: Command[NoArgs], owned: OwnedDevice) -> Reply[Any]:
    """Unlink the device from its account and forget the credentials."""
    session = owned.session
    if session.jid is None:
        return failed(command, ErrorKind.NOT_CONNECTED, NOT_LOGGED_IN, session_snapshot(session))
    return await host.end(command, owned, partial(unlink, owned))


# --- delete -----------------------------------------------------------------------------


async def _delete_taken(host: Host, command: Command[Any], owned: OwnedDevice, claimed: bool) -> Reply[Any]:
    """Unlink, stop, and delete the session's files (the API deletes the records after)."""
    owned.ending = True
    await forget(owned)
    record = RecordOnEnd.STOP_WANTING if claimed else RecordOnEnd.NOTHING
    return ok(command, await host.own.retire(owned, record, discard=True))


async def _delete_idle(host: Host, command: Command[NoArgs]) -> Outcome:
    """A device without a record is still cleaned up: the API deletes the record after."""
    return await host.take(command, records.Claim.VISIT, _delete_taken, missing_ok=True)


@handles(contracts.DELETE, when_idle=_delete_idle)
async def delete(host: Host, command: Command[NoArgs], owned: OwnedDevice) -> Reply[Any]:
    """Unlink if the network can be told, and stop everything; never fails on the network."""
    return await _delete_taken(host, command, owned, True)
