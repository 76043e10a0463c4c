"""Commands on messages the device received or sends."""

from __future__ import annotations

from typing import Any, TypeGuard

from gateway.bus import Command, CommandName, Reply
from gateway.failures.kinds import ErrorKind
from session_host.commands.context import Host, failed, ok, refuse_unless_connected
from session_host.commands.registry import handles
from session_host.owned import OwnedDevice, session_snapshot


@handles(CommandName.MARK_READ)
async def mark_read(_host: Host, command: Command, owned: OwnedDevice) -> Reply:
    """Read receipts for messages the device received; only a connected session sends them."""
    args = command.args
    chat, sender, ids = args.get("chat_jid"), args.get("sender_jid"), args.get("message_ids")
    if not (_text(chat) and _text(sender) and isinstance(ids, list) and ids and all(map(_text, ids))):
        return failed(command, ErrorKind.INVALID, "chat_jid, sender_jid and message_ids are required")
    if refused := refuse_unless_connected(command, owned):
        return refused
    await owned.session.messages.mark_read(chat, sender, ids)
    return ok(command, session_snapshot(owned.session))


def _text(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value)
