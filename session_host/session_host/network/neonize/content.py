"""What a received message says: its type, its text content, and its typed sub-object.

whatsmeow hands over the message already unwrapped (ephemeral and view-once wrappers
removed), so only ``documentWithCaptionMessage`` needs opening here. Messages that carry
nothing a person wrote (protocol messages, sender-key distribution, context-only
messages) describe as None and are not emitted as ``message.received``.

Media messages get a ``media`` object (``mime_type``, ``caption``, ``size``, ``sha256``,
``filename``, and ``file_length`` as before): what the sender declared. The bytes are
downloaded by :mod:`.media` (within the size limits and the deadline) and ride beside the
event; ``media_path`` stays None until the session host has stored them, and ``error`` says
why when it cannot (``too_large``, ``timeout``, ``download_failed``, ``store_failed``). Edits
(``protocolMessage`` of type ``MESSAGE_EDIT``) are read by :func:`.events.message`, never here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message

from .. import media_payloads
from ..media_types import Location, QuickReply
from ..vcards import from_vcard

_MEDIA_FIELDS = (
    ("imageMessage", "image"),
    ("videoMessage", "video"),
    ("ptvMessage", "video"),
    ("audioMessage", "audio"),
    ("documentMessage", "document"),
    ("stickerMessage", "sticker"),
)
_POLL_FIELDS = tuple(f"pollCreationMessage{suffix}" for suffix in ("", "V2", "V3", "V4", "V5", "V6"))


@dataclass(frozen=True)
class Described:
    """A message reduced to what the ``message.received`` payload needs."""

    message_type: str
    content: str
    extra: dict[str, Any] = field(default_factory=dict)


def _has(message: Message, name: str) -> bool:
    return name in Message.DESCRIPTOR.fields_by_name and message.HasField(name)


def _media(kind: str, part: Any) -> Described:
    caption = getattr(part, "caption", "") or ""
    media: dict[str, Any] = {
        "mime_type": part.mimetype,
        "caption": caption,
        "file_length": part.fileLength,
        "media_path": None,
        "size": part.fileLength,
        "sha256": part.fileSHA256.hex(),
        "filename": getattr(part, "fileName", "") or None,
    }
    extra: dict[str, Any] = {"media": media}
    if kind == "audio":
        media["ptt"] = part.PTT
        media["seconds"] = part.seconds
    if kind == "document":
        extra["document"] = {"file_name": part.fileName, "page_count": part.pageCount}
        return Described(kind, caption or part.fileName, extra)
    return Described(kind, caption, extra)


def describe_message(message: Message) -> Described | None:
    """Type, content and sub-object of a message; None when there is nothing to show."""
    if message.conversation:
        return Described("text", message.conversation)
    if _has(message, "extendedTextMessage"):
        return Described("text", message.extendedTextMessage.text)
    if _has(message, "documentWithCaptionMessage"):
        inner = message.documentWithCaptionMessage.message
        if inner.HasField("documentMessage"):
            return _media("document", inner.documentMessage)
    for name, kind in _MEDIA_FIELDS:
        if _has(message, name):
            return _media(kind, getattr(message, name))
    if _has(message, "locationMessage") or _has(message, "liveLocationMessage"):
        live = _has(message, "liveLocationMessage")
        loc = message.liveLocationMessage if live else message.locationMessage
        name = "" if live else loc.name
        place = Location(loc.degreesLatitude, loc.degreesLongitude, name, "" if live else loc.address)
        return Described("location", name, {"location": media_payloads.location_object(place, is_live=live)})
    if _has(message, "contactMessage"):
        card = message.contactMessage
        read = from_vcard(card.vcard, card.displayName)
        if read is None:
            contact = media_payloads.unread_contact_object(card.displayName)
        else:
            contact = media_payloads.contact_object(read, card.vcard)
        return Described("contact", card.displayName, {"contact": contact})
    if _has(message, "contactsArrayMessage"):
        cards = message.contactsArrayMessage
        contacts = [{"display_name": c.displayName, "vcard": c.vcard} for c in cards.contacts]
        return Described("contacts", cards.displayName, {"contacts": contacts})
    for name in _POLL_FIELDS:
        if _has(message, name):
            poll = getattr(message, name)
            options = [option.optionName for option in poll.options]
            payload = {"name": poll.name, "options": options, "selectable_count": poll.selectableOptionsCount}
            return Described("poll", poll.name, {"poll": payload})
    if _has(message, "buttonsMessage"):
        sent = message.buttonsMessage
        replies = [QuickReply(b.buttonID, b.buttonText.displayText) for b in sent.buttons]
        extra = media_payloads.buttons_object(replies, sent.footerText)
        return Described("template", sent.contentText, extra)
    if _has(message, "buttonsResponseMessage"):
        reply = message.buttonsResponseMessage
        payload = {"id": reply.selectedButtonID, "text": reply.selectedDisplayText}
        return Described("button_reply", reply.selectedDisplayText, {"button_reply": payload})
    if _has(message, "templateButtonReplyMessage"):
        reply = message.templateButtonReplyMessage
        payload = {"id": reply.selectedID, "text": reply.selectedDisplayText}
        return Described("button_reply", reply.selectedDisplayText, {"button_reply": payload})
    if _has(message, "listResponseMessage"):
        reply = message.listResponseMessage
        payload = {"id": reply.singleSelectReply.selectedRowID, "title": reply.title}
        return Described("list_reply", reply.title, {"list_reply": payload})
    if any(_has(message, name) for name in ("protocolMessage", "senderKeyDistributionMessage")):
        return None
    if not message.ListFields() or [f.name for f, _ in message.ListFields()] == ["messageContextInfo"]:
        return None
    return Described("unknown", "")
