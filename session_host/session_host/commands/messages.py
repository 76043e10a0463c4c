"""Commands on messages the device received or sends."""

from __future__ import annotations

from typing import Any

from gateway.bus import Command, Reply, contracts
from gateway.bus.contracts.messages import MarkReadArgs
from session_host.commands.registry import Host, handles, ok, refuse_unless_connected
from session_host.device_tenure import OwnedDevice, session_snapshot


@handles(contracts.MARK_READ)
async def mark_read(_host: Host, command: Command[MarkReadArgs], owned: OwnedDevice) -> Reply[Any]:
    """Read receipts for messages the device received; only a connected session sends them."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    args = command.args
    await owned.session.messages.mark_read(args.chat_jid, args.sender_jid, args.message_ids)
    return ok(command, session_snapshot(owned.session))
