"""Operations on messages already sent or held by the phone: delete one, ask for history,
react to one, edit one.

All act through the request's device. The input is checked first (400), then (delete) the
gateway's record of what the device sent, the send outbox (404 MESSAGE_NOT_FOUND, whatever
the device's status), then the device's status on its record (503), and only then is the
session host asked; it checks the record again, as it stands then, before the network is
(:mod:`session_host.commands.message_ops`). Its failures become the specification's codes
in :mod:`gateway.failures.table`.
"""

from __future__ import annotations

from typing import Any

from gateway.bus import CommandName, contracts
from gateway.bus.contracts.messages import (
    MAX_SYNC_COUNT,
    DeleteMessageArgs,
    EditMessageArgs,
    ReactArgs,
    SyncHistoryArgs,
)
from gateway.devices import commands
from gateway.devices.access import require_session
from gateway.errors import validation_error
from gateway.failures import table
from gateway.failures.kinds import ErrorKind
from gateway.messages import outbox
from gateway.messages.receipts import chat_of, require_fields, sender_of
from gateway.messages.schemas import (
    DeleteMessageRequest,
    EditMessageRequest,
    HistorySyncRequest,
    ReactRequest,
)
from gateway.models import DeviceModel
from gateway.observability import logger
from gateway.web.fields import is_blank

MAX_MESSAGE_ID_LENGTH = 128


def delete_message(device: DeviceModel, message_id: str, request: DeleteMessageRequest) -> dict[str, Any]:
    """Delete a message the device sent, for everyone or for its own account only."""
    message_id = _message_id(message_id)
    require_fields(message_id=message_id, chat_jid=(request.chat_jid or "").strip())
    chat = chat_of(request.chat_jid)
    send = outbox.find(device.tenant_id, device.device_id, message_id)
    if send is None or not send.deletable(chat.jid, for_everyone=request.for_everyone):
        # Known without the device: answered even when it is not connected.
        raise table.known(CommandName.DELETE_MESSAGE, ErrorKind.NOT_FOUND)
    require_session(device)
    args = DeleteMessageArgs(message_id=message_id, chat_jid=chat.jid, for_everyone=request.for_everyone)
    commands.execute(device, contracts.DELETE_MESSAGE, args)
    logger.info(
        "message deleted",
        extra={
            "device_id": device.device_id,
            "is_group": chat.is_group,
            "for_everyone": request.for_everyone,
        },
    )
    return {
        "message_id": message_id,
        "gateway_message_id": send.message_id,
        "network_message_id": send.network_message_id,  # set on every sent item
        "chat_jid": chat.jid,
        "for_everyone": request.for_everyone,
    }


def sync_history(device: DeviceModel, request: HistorySyncRequest) -> dict[str, Any]:
    """Ask the device's phone for a chat's latest messages; they come as ``history.sync``."""
    require_fields(chat_jid=(request.chat_jid or "").strip(), count=request.count is not None)
    chat = chat_of(request.chat_jid)
    count = request.count
    if count is None or not 1 <= count <= MAX_SYNC_COUNT:
        raise validation_error("count", f"must be 1 to {MAX_SYNC_COUNT}", count)
    require_session(device)
    commands.execute(device, contracts.SYNC_HISTORY, SyncHistoryArgs(chat_jid=chat.jid, count=count))
    logger.info("history requested", extra={"device_id": device.device_id, "is_group": chat.is_group})
    return {"chat_jid": chat.jid, "count": count}


def react(device: DeviceModel, message_id: str, request: ReactRequest) -> dict[str, Any]:
    """React to a message of a chat, or remove the device's reaction (an empty emoji).

    A message the device sent is found in the outbox by either id (the network keys it by
    its own id and the account as author); any other id is the network's id of a message
    someone sent in the chat: its author is the person of a one-to-one chat, and must be
    named (``sender_jid``) in a group (else 404 MESSAGE_NOT_FOUND: the gateway knows no such
    message). The network alone knows whether it exists.
    """
    message_id = _message_id(message_id)
    present = request.emoji is not None  # an empty emoji is a removal, not a missing one
    require_fields(message_id=message_id, chat_jid=(request.chat_jid or "").strip(), emoji=present)
    emoji = request.emoji or ""
    if emoji != emoji.strip():
        raise validation_error("emoji", "one emoji, without spaces", emoji)
    chat = chat_of(request.chat_jid)
    send = outbox.find(device.tenant_id, device.device_id, message_id)
    if send is not None and send.shown_in(chat.jid) and send.network_message_id is not None:
        args = ReactArgs(
            message_id=send.network_message_id, chat_jid=chat.jid, emoji=emoji, from_me=True, sender_jid=None
        )
    else:
        if chat.is_group and is_blank(request.sender_jid or ""):
            # Not among its sends, and without its author the network cannot be asked.
            raise table.known(CommandName.REACT_MESSAGE, ErrorKind.NOT_FOUND)
        sender = sender_of(chat, request.sender_jid)
        from_me = sender == device.messaging_jid  # a message the account sent from its phone
        args = ReactArgs(
            message_id=message_id,
            chat_jid=chat.jid,
            emoji=emoji,
            from_me=from_me,
            sender_jid=None if from_me else sender,
        )
    require_session(device)
    commands.execute(device, contracts.REACT_MESSAGE, args)
    logger.info(
        "reaction sent",
        extra={"device_id": device.device_id, "is_group": chat.is_group, "removed": not emoji},
    )
    return {"message_id": message_id, "chat_jid": chat.jid, "emoji": emoji}


def edit_message(device: DeviceModel, message_id: str, request: EditMessageRequest) -> dict[str, Any]:
    """Give a text the device sent a new text, within the network's window (the host checks
    it from its record of the send: 400 EDIT_TIME_EXPIRED after)."""
    message_id = _message_id(message_id)
    text = request.text or ""
    require_fields(
        message_id=message_id, chat_jid=(request.chat_jid or "").strip(), text="" if is_blank(text) else text
    )
    chat = chat_of(request.chat_jid)
    send = outbox.find(device.tenant_id, device.device_id, message_id)
    if send is None or not send.editable(chat.jid):
        # Known without the device, as for a delete: answered even when it is not connected.
        raise table.known(CommandName.EDIT_MESSAGE, ErrorKind.NOT_FOUND)
    require_session(device)
    commands.execute(
        device, contracts.EDIT_MESSAGE, EditMessageArgs(message_id=message_id, chat_jid=chat.jid, text=text)
    )
    logger.info("message edited", extra={"device_id": device.device_id, "is_group": chat.is_group})
    return {"message_id": message_id, "chat_jid": chat.jid}


def _message_id(message_id: str) -> str:
    """The path's message id, stripped (400 when longer than any id)."""
    message_id = message_id.strip()
    if len(message_id) > MAX_MESSAGE_ID_LENGTH:
        raise validation_error("message_id", f"at most {MAX_MESSAGE_ID_LENGTH} characters", message_id)
    return message_id
