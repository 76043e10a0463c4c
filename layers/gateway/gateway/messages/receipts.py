"""Read receipts: the device tells the senders that it read messages it received."""

from __future__ import annotations

from typing import Any

from gateway.bus import contracts
from gateway.bus.contracts.messages import MarkReadArgs
from gateway.devices import commands
from gateway.devices.access import require_session
from gateway.errors import ApiError, validation_error
from gateway.failures.codes import ErrorCode
from gateway.jids import PHONE_RULE, Address, parse_chat, parse_participant
from gateway.messages.schemas import MarkReadRequest
from gateway.models import DeviceModel
from gateway.observability import logger


def mark_read(device: DeviceModel, request: MarkReadRequest) -> dict[str, Any]:
    """Mark messages of one chat as read; returns the chat's JID and the ids sent.

    The input is checked first (400), then the device's status on its record (503), and only
    then is the session host asked; it answers 503 too when the record was behind the session.
    """
    message_ids = list(dict.fromkeys(request.message_ids or ()))
    require_fields(chat_jid=(request.chat_jid or "").strip(), message_ids=message_ids)
    chat = chat_of(request.chat_jid)
    sender = sender_of(chat, request.sender_jid)
    require_session(device)
    args = MarkReadArgs(chat_jid=chat.jid, sender_jid=sender, message_ids=message_ids)
    commands.execute(device, contracts.MARK_READ, args)
    logger.info(
        "messages marked as read",
        extra={"device_id": device.device_id, "is_group": chat.is_group, "count": len(message_ids)},
    )
    return {"chat_jid": chat.jid, "message_ids": message_ids}


def chat_of(value: str | None) -> Address:
    """The chat a message route names (400 INVALID_CHAT_JID when it cannot be parsed)."""
    chat = parse_chat(value)
    if chat is None:
        raise ApiError(
            400,
            ErrorCode.INVALID_CHAT_JID,
            "chat_jid must be a user JID (<phone number>@s.whatsapp.net), a phone number "
            f"({PHONE_RULE}) or a group JID (<digits>@g.us)",
        )
    return chat


def require_fields(**fields: str | bool | list[str]) -> None:
    """400 MISSING_REQUIRED_FIELDS naming every field that is absent, null or empty."""
    missing = [name for name, value in fields.items() if not value]
    if missing:
        raise ApiError(
            400,
            ErrorCode.MISSING_REQUIRED_FIELDS,
            f"required and must not be empty: {', '.join(missing)}",
            validation=[{"field": name, "message": "required", "value": None} for name in missing],
        )


def sender_of(chat: Address, value: str | None) -> str:
    """Who sent the messages (``sender_jid``): named for a group chat, the chat itself by
    default for a person."""
    if value is None or not value.strip():
        if chat.is_group:
            raise validation_error("sender_jid", "required for a group chat: the participant who sent them")
        return chat.jid
    return participant_of("sender_jid", value)


def participant_of(field: str, value: str | None) -> str:
    """The user JID or LID a person field names (phone digits become a user JID); 400 otherwise."""
    person = parse_participant(value)
    if person is None:
        raise validation_error(field, "must be a user JID, a phone number or a LID", value)
    return person.jid
