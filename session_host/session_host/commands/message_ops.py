"""Commands on messages already sent: delete (for everyone or for me), history sync,
reactions and edits.

The gateway only knows the messages its devices sent, through the send outbox
(:mod:`gateway.messages.outbox`, read on the host's AWS threads). So a delete names a
message of that record, by the gateway's id or the network's: an id it does not hold (a
received message, a message sent from the phone, one older than the record keeps), one of
another chat, or one already deleted is ``NOT_FOUND`` on both adapters. neonize cannot tell
an unknown id nor the revoke window before sending, so the host checks both here, for both
adapters alike; the simulated network checks them again on its side. An edit names a text of
that record in the same way, and its window (15 minutes) is checked here too. A reaction
names any message of the chat (the API resolved a sent one to the network's id): only the
network knows a received one.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from gateway.bus import Command, Reply, contracts
from gateway.bus.contracts.messages import (
    DeletedMessage,
    DeleteMessageArgs,
    EditedMessage,
    EditMessageArgs,
    HistoryRequested,
    ReactArgs,
    Reacted,
    SyncHistoryArgs,
)
from gateway.failures.kinds import ErrorKind
from session_host.commands.registry import Host, failed, handles, ok, on_session, refuse_unless_connected
from session_host.device_tenure import OwnedDevice, session_snapshot
from session_host.network import payloads
from session_host.network.port import DeviceSession, MessageRef


@handles(contracts.DELETE_MESSAGE)
async def delete_message(host: Host, command: Command[DeleteMessageArgs], owned: OwnedDevice) -> Reply[Any]:
    """Revoke (within the network's window) or delete for me a message the device sent."""
    message_id, chat, for_everyone = command.args.message_id, command.args.chat_jid, command.args.for_everyone
    if refused := refuse_unless_connected(command, owned):
        return refused
    store = host.own.senders.store
    send = await store.find(command.tenant_id, command.device_id, message_id)
    session = owned.session
    network_id, sent_at = (send.network_message_id, send.sent_at) if send is not None else (None, None)
    if (
        send is None
        or network_id is None
        or sent_at is None
        or not send.deletable(chat, for_everyone=for_everyone)
    ):
        message = f"the device sent no message {message_id} in {chat}, or it was already deleted"
        return failed(command, ErrorKind.NOT_FOUND, message, session_snapshot(session))
    if for_everyone:
        if time.time() - sent_at > session.messages.revoke_window_seconds:
            message = "the network's window to delete this for everyone has passed; delete it for me"
            return failed(command, ErrorKind.EXPIRED, message, session_snapshot(session))
        await session.messages.revoke_message(chat, network_id)
        await store.mark_revoked(send, time.time())
    else:
        await session.messages.delete_for_me(chat, network_id, from_me=True, sender=None)
        deleted_at = time.time()
        await store.mark_deleted_for_me(send, deleted_at)
        event = payloads.message_delete_for_me(
            message_id=network_id,
            gateway_message_id=send.message_id,
            chat_jid=chat,
            sender=session.jid,
            timestamp=deleted_at,
        )
        await host.own.publish(owned, event)
    result = DeletedMessage(
        message_id=send.message_id, network_message_id=network_id, chat_jid=chat, for_everyone=for_everyone
    )
    return ok(command, session_snapshot(session), result)


@on_session(contracts.SYNC_HISTORY)
async def sync_history(session: DeviceSession, args: SyncHistoryArgs) -> HistoryRequested:
    """Ask the account's phone for the chat's latest ``count`` messages; the answer comes
    later as ``history.sync`` (``on_demand``).

    The request names no message, so the port's ``oldest`` is an anchor at the time of the
    request with an id no message has: the phone answers with what came before now.
    """
    # Networks keep milliseconds: an anchor one millisecond on counts what was sent just now.
    now = time.time() + 0.001
    anchor = MessageRef(chat=args.chat_jid, message_id=uuid.uuid4().hex.upper(), from_me=True, timestamp=now)
    await session.messages.request_history_sync(args.chat_jid, args.count, anchor)
    return HistoryRequested(chat_jid=args.chat_jid, count=args.count)


@on_session(contracts.REACT_MESSAGE)
async def react_message(session: DeviceSession, args: ReactArgs) -> Reacted:
    """React to a message of a chat, or remove the account's reaction (an empty emoji)."""
    await session.messages.react(
        args.chat_jid, args.message_id, args.emoji, from_me=args.from_me, sender=args.sender_jid
    )
    return Reacted(message_id=args.message_id, chat_jid=args.chat_jid, emoji=args.emoji)


@handles(contracts.EDIT_MESSAGE)
async def edit_message(host: Host, command: Command[EditMessageArgs], owned: OwnedDevice) -> Reply[Any]:
    """Give a text the device sent a new text, within the network's edit window."""
    message_id, chat, text = command.args.message_id, command.args.chat_jid, command.args.text
    if refused := refuse_unless_connected(command, owned):
        return refused
    send = await host.own.senders.store.find(command.tenant_id, command.device_id, message_id)
    session = owned.session
    if send is None or send.network_message_id is None or send.sent_at is None or not send.editable(chat):
        message = f"the device sent no text {message_id} in {chat}, or it was deleted"
        return failed(command, ErrorKind.NOT_FOUND, message, session_snapshot(session))
    if time.time() - send.sent_at > session.messages.edit_window_seconds:
        message = "the network's window to edit this message has passed"
        return failed(command, ErrorKind.EXPIRED, message, session_snapshot(session))
    await session.messages.edit_message(chat, send.network_message_id, text)
    result = EditedMessage(
        message_id=send.message_id, network_message_id=send.network_message_id, chat_jid=chat
    )
    return ok(command, session_snapshot(session), result)
