"""neonize events → :class:`NetworkEvent` with catalog names and ``data`` payloads.

Pure functions: no client, no I/O. The session's handlers (``handlers.py``) decide *when* to
emit and what the events do to its state; this module reads what neonize's protobufs say. Events
both adapters produce are built by :mod:`..payloads` (the lifecycle ones are called from
there directly); the events only this adapter produces are built here, and in one module
per kind for groups, calls, privacy, channels and history (:mod:`.mapping` lists them all).

Time units, as neonize 0.5.2 encodes them: ``MessageInfo.Timestamp`` (messages,
undecryptable messages) is in **milliseconds**; every other timestamp (receipts, presence,
pictures, identity changes, keep-alive, groups, calls, channels, send responses) is in
seconds, and a time the network did not give arrives as Go's zero time (year 1, a negative
epoch): every payload reports it as null (:func:`..payloads.iso_utc_or_none`), never a date.

Edits: whatsmeow unwraps an edit (``editedMessage`` in the raw message) and reports it as a
``Message`` event with ``IsEdit`` set, ``Message`` holding the new content and ``Info.ID``
the edit's own id; the id of the message edited is only in the raw message's
``protocolMessage.key`` (type ``MESSAGE_EDIT``). An edit that reaches the adapter as the
protocol message itself (older clients, or a ``Message`` still wrapping it) is read the same
way. Either becomes ``message.edited`` with the original id, never a new
``message.received``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message as ProtoMessage
from neonize.proto.Neonize_pb2 import (
    ChatPresence,
    ConnectFailureReason,
    IdentityChange,
    KeepAliveTimeout,
    LoggedOut,
    MessageSource,
    OfflineSyncCompleted,
    OfflineSyncPreview,
    PairStatus,
    Picture,
    Presence,
    Receipt,
    TemporaryBan,
    UndecryptableMessage,
)
from neonize.proto.Neonize_pb2 import Message as MessageEv
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message as WaMessage
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ProtocolMessage, SecretEncryptedMessage

from gateway.jids import GROUP_SERVER
from gateway.webhooks.catalog import EventName

from .. import group_payloads, payloads
from ..payloads import iso_utc, iso_utc_or_none
from ..port import NetworkEvent
from ..reply_types import option_texts
from .content import describe_message
from .jids import chat_of, iso_from_millis, jid_str, sender_of
from .replies import quoted_of


@dataclass(frozen=True)
class EventContext:
    """What a payload needs to know about the session: its device and own account."""

    device_id: str
    own_jid: str | None = None


def author(ctx: EventContext, source: MessageSource) -> str | None:
    """Who wrote a message (or reacted, edited, voted): the device's own account for what it
    sent itself, from this or another of its devices; else the sender, by phone JID."""
    return ctx.own_jid if source.IsFromMe and ctx.own_jid else sender_of(source)


def _event(name: EventName, data: dict[str, Any]) -> NetworkEvent:
    return NetworkEvent(name=name, data=data)


def enum_name(message: ProtoMessage, field: str) -> str | None:
    """An enum field's value name in lowercase; None when unset or unknown to this neonize."""
    if not message.HasField(field):
        return None
    enum = message.DESCRIPTOR.fields_by_name[field].enum_type
    assert enum is not None, f"{field} is not an enum field"
    value = enum.values_by_number.get(getattr(message, field))
    return value.name.lower() if value is not None else None


def _failure_reason(reason: int, default: str) -> str:
    """``ConnectFailureReason`` as a lowercase name (``logged_out``, ``main_device_gone``)."""
    try:
        name: str = ConnectFailureReason.Name(reason)
        return name.lower()
    except ValueError:
        return default


# --- device lifecycle and pairing -------------------------------------------------------


def logged_out_reason(ev: LoggedOut) -> str:
    return _failure_reason(ev.Reason, "logged_out") if ev.HasField("Reason") else "logged_out"


def pair_success(ctx: EventContext, ev: PairStatus) -> NetworkEvent:
    return payloads.pair_success(
        ctx.device_id, jid_str(ev.ID), platform=ev.Platform, business_name=ev.BusinessName
    )


# --- connection -------------------------------------------------------------------------


def temporary_ban(ctx: EventContext, ev: TemporaryBan) -> NetworkEvent:
    code = TemporaryBan.TempBanReason.Name(ev.Code).lower() if ev.HasField("Code") else "unknown"
    return _event(
        EventName.CONNECTION_TEMPORARY_BAN,
        {
            "device_id": ctx.device_id,
            "code": code,
            "expire_seconds": ev.Expire,
            "expires_at": iso_utc(time.time() + ev.Expire),
        },
    )


def keepalive_timeout(ctx: EventContext, ev: KeepAliveTimeout) -> NetworkEvent:
    return _event(
        EventName.CONNECTION_KEEPALIVE_TIMEOUT,
        {
            "device_id": ctx.device_id,
            "error_count": ev.ErrorCount,
            "last_success": iso_utc_or_none(ev.LastSuccess),
        },
    )


def keepalive_restored(ctx: EventContext) -> NetworkEvent:
    return _event(EventName.CONNECTION_KEEPALIVE_RESTORED, {"device_id": ctx.device_id})


# --- messages and receipts --------------------------------------------------------------


def message(ctx: EventContext, ev: MessageEv) -> NetworkEvent | None:
    """A ``Message`` event: ``message.reaction`` for a reaction, ``message.edited`` for an
    edit, else :func:`message_received`; a poll vote is the session's to decrypt
    (``handlers.py``, :func:`poll_vote`): None here."""
    if is_poll_vote(ev):
        return None
    if ev.Message.HasField("reactionMessage"):
        return reaction(ctx, ev)
    edit = _edit_of(ev)
    if edit is None:
        return message_received(ctx, ev)
    original_id, content, edited_at_ms = edit
    text = None
    if content is not None:
        described = describe_message(content)
        text = described.content if described is not None else ""
    source = ev.Info.MessageSource
    sender = author(ctx, source)
    return payloads.message_edited(
        message_id=original_id,
        chat_jid=chat_of(source),
        sender=sender,
        content=text,
        is_from_me=source.IsFromMe,
        edited_at=(edited_at_ms or ev.Info.Timestamp) / 1000,  # both in milliseconds
    )


def reaction(ctx: EventContext, ev: MessageEv) -> NetworkEvent:
    """``message.reaction``: the message reacted to is the reaction's key, not ``Info.ID`` (the
    reaction's own id); an empty text is a reaction removed."""
    reacted = ev.Message.reactionMessage
    source = ev.Info.MessageSource
    sender = author(ctx, source)
    return payloads.message_reaction(
        message_id=reacted.key.ID,
        chat_jid=chat_of(source),
        sender=sender,
        emoji=reacted.text,
        is_from_me=source.IsFromMe,
        timestamp=(reacted.senderTimestampMS or ev.Info.Timestamp) / 1000,  # both in milliseconds
    )


def _edit_protocol(message: WaMessage) -> ProtocolMessage | None:
    """The ``MESSAGE_EDIT`` protocol message inside ``message`` (through its wrappers), or None."""
    for _ in range(4):  # deviceSent / ephemeral / edited wrappers, each at most once
        if message.HasField("protocolMessage"):
            protocol = message.protocolMessage
            return protocol if protocol.type == ProtocolMessage.MESSAGE_EDIT else None
        for wrapper in ("deviceSentMessage", "ephemeralMessage", "editedMessage"):
            if message.HasField(wrapper) and getattr(message, wrapper).HasField("message"):
                message = getattr(message, wrapper).message
                break
        else:
            return None
    return None


def _edit_of(ev: MessageEv) -> tuple[str | None, WaMessage | None, int] | None:
    """(id of the message edited, its new content, edit time in ms or 0); None if no edit.

    The content is None for an edit the network sent encrypted with the message's secret
    (``secretEncryptedMessage`` of type ``MESSAGE_EDIT``), which neonize offers no way to
    decrypt: the edit is still reported, its text unknown.
    """
    secret = ev.Message.secretEncryptedMessage if ev.Message.HasField("secretEncryptedMessage") else None
    if secret is not None and secret.secretEncType == SecretEncryptedMessage.MESSAGE_EDIT:
        return secret.targetMessageKey.ID or None, None, 0
    protocol = _edit_protocol(ev.Message)
    if protocol is not None:  # the edit itself: key and new content inside
        return protocol.key.ID or None, protocol.editedMessage, protocol.timestampMS
    if not ev.IsEdit:
        return None
    raw = _edit_protocol(ev.Raw) if ev.HasField("Raw") else None
    if raw is None:
        return None, ev.Message, 0
    return raw.key.ID or None, ev.Message, raw.timestampMS


def message_received(ctx: EventContext, ev: MessageEv) -> NetworkEvent | None:
    """``message.received``; None for messages that carry nothing to show (protocol, keys)."""
    described = describe_message(ev.Message)
    if described is None:
        return None
    info = ev.Info
    source = info.MessageSource
    chat = chat_of(source)
    sender = author(ctx, source)
    recipient = chat if source.IsGroup or source.IsFromMe else (ctx.own_jid or chat)
    return payloads.message_received(
        message_id=info.ID,
        sender=sender,
        recipient=recipient,
        chat_jid=chat,
        content=described.content,
        message_type=described.message_type,
        is_from_me=source.IsFromMe,
        is_group=source.IsGroup,
        push_name=info.Pushname,
        timestamp=info.Timestamp / 1000,  # sent in milliseconds
        extra=described.extra,
        quoted=quoted_of(ev.Message),
    )


# --- polls -------------------------------------------------------------------


def is_poll_vote(ev: MessageEv) -> bool:
    """Whether the message is a vote on a poll (encrypted with the poll's secret)."""
    return bool(ev.Message.HasField("pollUpdateMessage"))


def poll_vote(
    ctx: EventContext, ev: MessageEv, selected: list[bytes], options: list[str] | None
) -> NetworkEvent:
    """``poll.vote`` of a decrypted vote: ``selected`` the hashes of the options chosen,
    named by their texts from the poll's ``options`` when known (``sha256:<hex>`` otherwise)."""
    source = ev.Info.MessageSource
    voter = author(ctx, source)
    return payloads.poll_vote(
        message_id=ev.Message.pollUpdateMessage.pollCreationMessageKey.ID,
        chat_jid=chat_of(source),
        voter=voter,
        selected_options=option_texts(selected, options),
        at=ev.Info.Timestamp / 1000,  # sent in milliseconds
    )


def receipt(_ctx: EventContext, ev: Receipt) -> NetworkEvent | None:
    """``message.delivered`` / ``message.read``; None for the other receipt types."""
    if not ev.HasField("Type") or ev.Type not in (Receipt.DELIVERED, Receipt.READ):
        return None
    source = ev.MessageSource
    read = ev.Type == Receipt.READ
    return payloads.message_receipt(
        "read" if read else "delivered",
        message_ids=ev.MessageIDs,
        chat_jid=chat_of(source),
        is_group=source.IsGroup,
        at=ev.Timestamp,
        reader=sender_of(source) if read else None,
    )


def undecryptable(_ctx: EventContext, ev: UndecryptableMessage) -> NetworkEvent:
    source = ev.Info.MessageSource
    mode = ev.DecryptFailMode
    return _event(
        EventName.MESSAGE_UNDECRYPTABLE,
        {
            "message_id": ev.Info.ID,
            "from": sender_of(source),
            "chat_jid": chat_of(source),
            "is_group": source.IsGroup,
            "is_unavailable": ev.IsUnavailable,
            "hidden": ev.HasField("DecryptFailMode") and mode == UndecryptableMessage.DECRYPT_FAIL_HIDE,
            "timestamp": iso_from_millis(ev.Info.Timestamp),
        },
    )


# --- contacts, chats, sync --------------------------------------------------------------


def chat_presence(_ctx: EventContext, ev: ChatPresence) -> NetworkEvent:
    state = "composing" if ev.State == ChatPresence.COMPOSING else "paused"
    media = "audio" if ev.HasField("Media") and ev.Media == ChatPresence.AUDIO else "text"
    return payloads.chat_presence(
        chat_jid=chat_of(ev.MessageSource),
        sender=sender_of(ev.MessageSource),
        is_group=ev.MessageSource.IsGroup,
        state=state,
        media=media,
    )


def presence(_ctx: EventContext, ev: Presence) -> NetworkEvent:
    """A followed person's presence; ``last_seen`` only with going offline (``docs/events.md``)."""
    last_seen = ev.LastSeen if ev.Unavailable else None
    return payloads.contact_presence(jid_str(ev.From), available=not ev.Unavailable, last_seen=last_seen)


def picture(_ctx: EventContext, ev: Picture) -> NetworkEvent:
    """A contact's picture: ``contact.picture``; a group's: ``group.info`` with ``picture``, as
    every other change of a group (whatsmeow reports both as one event type)."""
    if ev.JID.Server == GROUP_SERVER:
        return group_payloads.group_info(
            group_jid=jid_str(ev.JID),
            author=jid_str(ev.Author),
            author_name=None,
            at=ev.Timestamp,
            picture={"picture_id": None, "removed": ev.Remove},
        )
    return _event(
        EventName.CONTACT_PICTURE,
        {
            "jid": jid_str(ev.JID),
            "author": jid_str(ev.Author),
            "removed": ev.Remove,
            "timestamp": iso_utc_or_none(ev.Timestamp),
        },
    )


def identity_change(_ctx: EventContext, ev: IdentityChange) -> NetworkEvent:
    return _event(
        EventName.IDENTITY_CHANGE,
        {"jid": jid_str(ev.JID), "implicit": ev.Implicit, "timestamp": iso_utc_or_none(ev.Timestamp)},
    )


def offline_sync_preview(ctx: EventContext, ev: OfflineSyncPreview) -> NetworkEvent:
    return _event(
        EventName.OFFLINE_SYNC_PREVIEW,
        {
            "device_id": ctx.device_id,
            "total": ev.Total,
            "messages": ev.Message,
            "notifications": ev.Notifications,
            "receipts": ev.Receipts,
            "app_data_changes": ev.AppDataChanges,
        },
    )


def offline_sync_completed(ctx: EventContext, ev: OfflineSyncCompleted) -> NetworkEvent:
    return _event(EventName.OFFLINE_SYNC_COMPLETED, {"device_id": ctx.device_id, "count": ev.Count})
