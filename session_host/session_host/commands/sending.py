"""Commands on the device's sends (the outbox, :mod:`session_host.sending`).

``send_text`` names a send the API has put in the outbox, and carries it whole (and the
device's ``min_send_interval_seconds``), so nothing is read before the dispatch. The
handler hands it to the device's dispatcher and returns a :class:`~.registry.Later`: the
device's lock is let go at once (the dispatcher and other commands of the device go on
meanwhile) and the reply waits for the dispatch, up to the command's deadline. A send that
has not gone out by then is answered ``scheduled``: it stays in the outbox and goes out
later, whichever host runs the device; so is, at once, a send the sending policy or a pause
of the device holds (for when it may go). The command's sending policy applies from it on.
A planned send (``send_at``), due after the command's deadline, is handed over and answered
``scheduled`` at once.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from gateway import clock
from gateway.bus import Command, DeviceSnapshot, Reply, contracts
from gateway.bus.contracts.messages import SendOutcome, SendTextArgs
from gateway.failures.kinds import ErrorKind
from gateway.messages.sends import Send, SendState
from session_host.commands.registry import Host, Later, Outcome, failed, handles, ok
from session_host.device_tenure import OwnedDevice, session_snapshot
from session_host.network.payloads import iso_utc
from session_host.sending import DeviceSender, Dispatched

REPLY_MARGIN_SECONDS = 0.5
"""The reply leaves this long before the command's deadline, so it reaches the caller in time."""


def sent_result(send: Send, network_message_id: str | None, sent_at: float | None) -> SendOutcome:
    return SendOutcome(
        status="sent",
        message_id=send.message_id,
        chat_jid=send.chat_jid,
        sent_at=iso_utc(sent_at or clock.now()),
        network_message_id=network_message_id,
    )


def scheduled_result(send: Send, scheduled_for: float) -> SendOutcome:
    return SendOutcome(
        status="scheduled",
        message_id=send.message_id,
        chat_jid=send.chat_jid,
        scheduled_for=iso_utc(scheduled_for),
    )


async def _find(host: Host, command: Command[SendTextArgs]) -> Send | Reply[Any]:
    if carried := command.args.carried(command.tenant_id, command.device_id):
        return carried
    send = await host.own.senders.store.get(command.tenant_id, command.device_id, command.args.send_key)
    if send is None:
        return failed(command, ErrorKind.NOT_FOUND, "no such send in the device's outbox")
    return send


def _finished(command: Command[Any], send: Send, device: DeviceSnapshot | None) -> Reply[Any] | None:
    """The answer for a send that is already over, else None."""
    if send.state is SendState.SENT:
        return ok(command, device, sent_result(send, send.network_message_id, send.sent_at))
    if send.state is SendState.FAILED:
        kind = send.error_kind or ErrorKind.NETWORK
        return failed(command, kind, send.error or "the send failed", device)
    return None


async def _send_idle(host: Host, command: Command[SendTextArgs]) -> Outcome:
    """No session runs the device here: its host answers, or (none) the send waits in the
    outbox for the device to run again."""
    if forward := await host.to_holder(command):
        return forward
    found = await _find(host, command)
    if isinstance(found, Reply):
        return found
    return _finished(command, found, None) or ok(command, None, scheduled_result(found, found.not_before))


@handles(contracts.SEND_TEXT, when_idle=_send_idle)
async def send_text(host: Host, command: Command[SendTextArgs], owned: OwnedDevice) -> Reply[Any] | Later:
    """Dispatch the send now or when it is due, and answer once it is out (or scheduled)."""
    found = await _find(host, command)
    if isinstance(found, Reply):
        return found
    device = session_snapshot(owned.session)
    if done := _finished(command, found, device):
        return done
    sender = host.own.senders.get(owned.device_id)
    if sender is None or sender.owned is not owned:  # the tenure is ending
        return ok(command, device, scheduled_result(found, found.not_before))
    interval = command.args.min_send_interval_seconds
    if interval is not None:
        sender.interval = interval
    if command.args.sending_policy is not None:
        sender.apply(command.args.sending_policy)
    sender.offer(found)
    # Planned (send_at) beyond the command's deadline: nobody waits for its dispatch. (The
    # send's times are the policy clock's, the deadline the real one's.)
    if found.not_before - clock.now() > command.deadline - time.time():
        return ok(command, device, scheduled_result(found, found.not_before))
    key = found.send_key
    return Later(_await_dispatch(command, owned, sender, found), replied=lambda: sender.replied(key))


async def _await_dispatch(
    command: Command[Any], owned: OwnedDevice, sender: DeviceSender, send: Send
) -> Reply[Any]:
    future = sender.watch(send.send_key)
    remaining = command.deadline - REPLY_MARGIN_SECONDS - time.time()
    try:
        outcome: Dispatched = await asyncio.wait_for(asyncio.shield(future), max(0.0, remaining))
    except TimeoutError:
        sender.unwatch(send.send_key, future)
        scheduled = scheduled_result(send, max(sender.scheduled_for(send), clock.now()))
        return ok(command, session_snapshot(owned.session), scheduled)
    device = session_snapshot(owned.session)
    if outcome.scheduled_for is not None:  # held by the sending policy or a pause
        return ok(command, device, scheduled_result(send, outcome.scheduled_for))
    if outcome.error is not None:
        return failed(command, outcome.error_kind or ErrorKind.NETWORK, outcome.error, device)
    return ok(command, device, sent_result(send, outcome.network_message_id, outcome.sent_at))
