"""The ``data`` payloads of the events both network adapters produce.

The ``simulated`` and the ``neonize`` adapter build these events here, so a webhook
consumer cannot tell the adapters apart by their payloads; each adapter keeps only the
mapping from its own world (protobufs, simulated traffic) to the arguments. The call and
group events have modules of their own (:mod:`.call_payloads`, :mod:`.group_payloads`). The
fields are documented in ``docs/events.md``; keep the two in step.

Every timestamp in a payload is ISO 8601 UTC with milliseconds (:func:`iso_utc`); a time the
network did not give (absent, zero, or Go's zero time, year 1) is null, never a date
(:func:`iso_utc_or_none`). JIDs are ``user@server`` strings without agent or device part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Literal

from gateway.webhooks.catalog import EventName

from .media_types import ReceivedMedia
from .port import NetworkEvent

ReceiptKind = Literal["delivered", "read"]
MediaError = Literal["too_large", "timeout", "download_failed", "store_failed"]
"""Why a received media has no ``media_path``: over the size limit, past the download
deadline, refused by the network, or not storable in the media bucket."""


def iso_utc(epoch_seconds: float) -> str:
    """ISO 8601 UTC with milliseconds (``2024-01-01T12:00:00.000Z``), as the gateway writes it."""
    moment = datetime.fromtimestamp(epoch_seconds, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_utc_or_none(epoch_seconds: float | None) -> str | None:
    """:func:`iso_utc`, or None when the network gave no time (absent, zero or Go's zero time)."""
    return iso_utc(epoch_seconds) if epoch_seconds is not None and epoch_seconds > 0 else None


def _event(name: EventName, data: dict[str, Any]) -> NetworkEvent:
    return NetworkEvent(name=name, data=data)


# --- device lifecycle -------------------------------------------------------------------


def device_connected(device_id: str, messaging_jid: str | None) -> NetworkEvent:
    """The session is logged in and connected (exactly the specification's five fields)."""
    return _event(
        EventName.DEVICE_CONNECTED,
        {
            "device_id": device_id,
            "status": "connected",
            "messaging_jid": messaging_jid,
            "is_connected": True,
            "is_logged_in": True,
        },
    )


def device_disconnected(device_id: str, reason: str, *, logged_in: bool = True) -> NetworkEvent:
    """The connection ended; a session stopped before it paired is ``not_ready``, not logged in."""
    return _event(
        EventName.DEVICE_DISCONNECTED,
        {
            "device_id": device_id,
            "status": "disconnected" if logged_in else "not_ready",
            "is_connected": False,
            "is_logged_in": logged_in,
            "reason": reason,
        },
    )


def device_logged_out(device_id: str, reason: str) -> NetworkEvent:
    """The device is unlinked and its credentials are gone: it must pair again."""
    return _event(
        EventName.DEVICE_LOGGED_OUT,
        {
            "device_id": device_id,
            "status": "logged_out",
            "is_connected": False,
            "is_logged_in": False,
            "reason": reason,
        },
    )


# --- pairing ----------------------------------------------------------------------------


def qr_generated(device_id: str, qr_code: str, expires_at: float) -> NetworkEvent:
    return _event(
        EventName.QR_GENERATED,
        {"device_id": device_id, "qr_code": qr_code, "expires_at": iso_utc(expires_at)},
    )


def pair_success(
    device_id: str, messaging_jid: str | None, *, platform: str, business_name: str | None
) -> NetworkEvent:
    return _event(
        EventName.PAIR_SUCCESS,
        {
            "device_id": device_id,
            "messaging_jid": messaging_jid,
            "platform": platform,
            "business_name": business_name,
        },
    )


def pair_error(device_id: str, reason: str, error: str) -> NetworkEvent:
    """The pairing attempt ended without a link (QR window over, connection lost, refused)."""
    return _event(EventName.CONNECTION_PAIR_ERROR, {"device_id": device_id, "reason": reason, "error": error})


# --- connection -------------------------------------------------------------------------


def stream_replaced(device_id: str) -> NetworkEvent:
    return _event(
        EventName.CONNECTION_STREAM_REPLACED,
        {"device_id": device_id, "reason": "another client connected with the same credentials"},
    )


def connection_failure(device_id: str, reason: str, message: str, *, permanent: bool = False) -> NetworkEvent:
    """An attempt to reach the network failed (port contract): the session is idle after it.

    The session host adds ``attempt`` and ``reconnect_at`` (``supervision.py``) before the
    event is recorded and published.
    """
    return _event(
        EventName.CONNECTION_FAILURE,
        {"device_id": device_id, "reason": reason, "message": message, "permanent": permanent},
    )


def send_limited(device_id: str, *, reason: str, until: float) -> NetworkEvent:
    """The network refused a send for rate (``reason``: ``rate_overlimit`` or
    ``reachout_timelock``): the device's sends to new chats wait until ``until``."""
    return _event(
        EventName.DEVICE_SEND_LIMITED, {"device_id": device_id, "reason": reason, "until": iso_utc(until)}
    )


def manual_reconnect(device_id: str) -> NetworkEvent:
    """POST /devices/{id}/reconnect: the next attempt starts now, its backoff reset."""
    return _event(EventName.CONNECTION_MANUAL_RECONNECT, {"device_id": device_id})


# --- messages, receipts, presence -------------------------------------------------------


def message_received(
    *,
    message_id: str,
    sender: str | None,
    recipient: str | None,
    chat_jid: str | None,
    content: str,
    message_type: str,
    is_from_me: bool,
    is_group: bool,
    push_name: str,
    timestamp: float,
    extra: Mapping[str, Any] | None = None,
    attachment: ReceivedMedia | None = None,
    quoted: Mapping[str, Any] | None = None,
) -> NetworkEvent:
    """A message reached the device; ``extra`` holds the type's sub-object (``media``, ``poll``...),
    ``attachment`` the bytes of a media message (see :func:`media_not_kept` when there are none),
    ``quoted`` the message it replies to (:func:`quoted_message`), None when it quotes none."""
    data: dict[str, Any] = {
        "message_id": message_id,
        "from": sender,
        "to": recipient,
        "content": content,
        "message_type": message_type,
        "is_from_me": is_from_me,
        "push_name": push_name,
        "timestamp": iso_utc_or_none(timestamp),
        "chat_jid": chat_jid,
        "is_group": is_group,
        "quoted": dict(quoted) if quoted is not None else None,
    }
    data.update(extra or {})
    return NetworkEvent(name=EventName.MESSAGE_RECEIVED, data=data, attachment=attachment)


def quoted_message(message_id: str, sender: str | None, content: str | None) -> dict[str, Any]:
    """``quoted`` of ``message.received``: the id of the message replied to, its author and
    its text, as far as the reply says (None where it does not)."""
    return {"message_id": message_id, "from": sender, "content": content}


def poll_vote(
    *, message_id: str, chat_jid: str | None, voter: str | None, selected_options: list[str], at: float
) -> NetworkEvent:
    """Someone voted on a poll (``message_id``: the poll's); ``selected_options`` are the texts
    of the options chosen now (empty: the vote was taken back)."""
    return _event(
        EventName.POLL_VOTE,
        {
            "message_id": message_id,
            "chat_jid": chat_jid,
            "voter": voter,
            "selected_options": selected_options,
            "timestamp": iso_utc_or_none(at),
        },
    )


def media_not_kept(event: NetworkEvent, error: MediaError) -> NetworkEvent:
    """``event`` (a ``message.received`` with ``media``) without bytes: ``media_path`` null and
    ``error`` saying why; the message itself is still reported."""
    media = {**event.data["media"], "media_path": None, "error": error}
    return replace(event, data={**event.data, "media": media}, attachment=None)


def message_edited(
    *,
    message_id: str | None,
    chat_jid: str | None,
    sender: str | None,
    content: str | None,
    is_from_me: bool,
    edited_at: float | None,
) -> NetworkEvent:
    """Someone edited a message: ``message_id`` is the id of the message edited (the original),
    never the edit's own id; ``content`` the text it shows now (None: the network did not let
    the adapter read it)."""
    return _event(
        EventName.MESSAGE_EDITED,
        {
            "message_id": message_id,
            "chat_jid": chat_jid,
            "from": sender,
            "content": content,
            "is_from_me": is_from_me,
            "edited_at": iso_utc_or_none(edited_at),
        },
    )


def message_sent(
    *,
    message_id: str,
    gateway_message_id: str,
    chat_jid: str,
    content: str,
    timestamp: float,
    message_type: str = "text",
) -> NetworkEvent:
    """The gateway dispatched a text for the device (the network does not echo it): the
    network's id, and the id the send request was answered with."""
    return NetworkEvent(
        name=EventName.MESSAGE_SENT,
        data={
            "message_id": message_id,
            "gateway_message_id": gateway_message_id,
            "chat_jid": chat_jid,
            "message_type": message_type,
            "content": content,
            "timestamp": iso_utc(timestamp),
        },
        occurred_at=timestamp,
    )


def mention_sent(*, message_id: str, chat_jid: str, mentioned: list[str], timestamp: float) -> NetworkEvent:
    """The gateway dispatched a text that mentions people (after its ``message.sent``)."""
    return NetworkEvent(
        name=EventName.MENTION_SENT,
        data={
            "message_id": message_id,
            "chat_jid": chat_jid,
            "mentioned": mentioned,
            "timestamp": iso_utc(timestamp),
        },
        occurred_at=timestamp,
    )


def message_delete_for_me(
    *, message_id: str, gateway_message_id: str, chat_jid: str, sender: str | None, timestamp: float
) -> NetworkEvent:
    """The gateway deleted a message the device sent from the account's own view (app state
    the adapters do not report): the network's id, and the id the send was answered with."""
    return NetworkEvent(
        name=EventName.MESSAGE_DELETE_FOR_ME,
        data={
            "message_id": message_id,
            "gateway_message_id": gateway_message_id,
            "chat_jid": chat_jid,
            "sender": sender,
            "is_from_me": True,
            "delete_media": False,
            "timestamp": iso_utc(timestamp),
        },
        occurred_at=timestamp,
    )


def message_receipt(
    kind: ReceiptKind,
    *,
    message_ids: Sequence[str],
    chat_jid: str | None,
    is_group: bool,
    at: float,
    reader: str | None = None,
) -> NetworkEvent:
    """``message.delivered`` or ``message.read`` for messages the device sent; reads name the reader.

    ``gateway_message_ids`` is empty here: the session host fills it from its outbox
    (:mod:`session_host.outbox_names`), which adapters do not read."""
    data: dict[str, Any] = {
        "message_ids": list(message_ids),
        "gateway_message_ids": [],
        "chat_jid": chat_jid,
        "receipt_type": kind,
        "message_count": len(message_ids),
        "is_group": is_group,
        f"{kind}_at": iso_utc_or_none(at),
    }
    if kind == "read":
        data["reader"] = reader
    return _event(EventName.MESSAGE_READ if kind == "read" else EventName.MESSAGE_DELIVERED, data)


def message_reaction(
    *,
    message_id: str,
    chat_jid: str | None,
    sender: str | None,
    emoji: str,
    is_from_me: bool,
    timestamp: float | None,
) -> NetworkEvent:
    """Someone reacted to a message (``message_id``: the message reacted to); an empty
    ``emoji`` is a reaction removed."""
    return _event(
        EventName.MESSAGE_REACTION,
        {
            "message_id": message_id,
            "chat_jid": chat_jid,
            "from": sender,
            "emoji": emoji,
            "is_from_me": is_from_me,
            "timestamp": iso_utc_or_none(timestamp),
        },
    )


def chat_presence(
    *, chat_jid: str | None, sender: str | None, is_group: bool, state: str, media: str
) -> NetworkEvent:
    """Someone shows (``composing``) or stops showing (``paused``) typing in a chat."""
    return _event(
        EventName.CHAT_PRESENCE,
        {"chat_jid": chat_jid, "sender": sender, "is_group": is_group, "state": state, "media": media},
    )


def contact_presence(jid: str | None, *, available: bool, last_seen: float | None) -> NetworkEvent:
    """A contact came online or went offline (``last_seen`` only when the network tells it)."""
    return _event(
        EventName.CONTACT_PRESENCE,
        {
            "jid": jid,
            "available": available,
            "last_seen": iso_utc_or_none(last_seen),
        },
    )


# --- contacts --------------------------------------------------------------


def blocklist_changed(
    changes: Sequence[tuple[str | None, str | None]], *, refresh_needed: bool = False
) -> NetworkEvent:
    """The account blocked or unblocked people: ``changes`` are ``(jid, action)`` pairs; with
    ``refresh_needed`` the network only said the list changed (fetch it whole)."""
    return _event(
        EventName.PRIVACY_BLOCKLIST,
        {
            "changes": [{"jid": jid, "action": action} for jid, action in changes],
            "refresh_needed": refresh_needed,
        },
    )
