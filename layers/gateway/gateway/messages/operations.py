"""Operations on messages already sent or held by the phone: delete one, ask for history.

Both act through the request's device. The input is checked first (400), then (delete) the
gateway's record of what the device sent, the send outbox (404 MESSAGE_NOT_FOUND, whatever
the device's status), then the device's status on its record (503), and only then is the
session host asked; it checks the record again, as it stands then, before the network is
(:mod:`session_host.commands.message_ops`). Its failures become the specification's codes
in :mod:`gateway.failures.table`.
"""

from __future__ import annotations

from typing import Any

from gateway.bus import CommandName, contracts
from gateway.bus.contracts.messages import MAX_SYNC_COUNT, DeleteMessageArgs, SyncHistoryArgs
from gateway.devices import commands
from gateway.devices.access import require_session
from gateway.errors import validation_error
from gateway.failures import table
from gateway.failures.kinds import ErrorKind
from gateway.messages import outbox
from gateway.messages.receipts import chat_of, require_fields
from gateway.messages.schemas import DeleteMessageRequest, HistorySyncRequest
from gateway.models import DeviceModel
from gateway.observability import logger

MAX_MESSAGE_ID_LENGTH = 128


def delete_message(device: DeviceModel, message_id: str, request: DeleteMessageRequest) -> dict[str, Any]:
    """Delete a message the device sent, for everyone or for its own account only."""
    message_id = message_id.strip()
    if len(message_id) > MAX_MESSAGE_ID_LENGTH:
        raise validation_error("message_id", f"at most {MAX_MESSAGE_ID_LENGTH} characters", message_id)
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
