"""What a message carries on the simulated network, beyond who sent it where.

A :class:`Body` is built once per send and gives both views of the message: the fields the
recipient's inbox shows (``GET /_simulator/accounts/{phone}/inbox``) and the ``content``,
``message_type`` and sub-objects of the ``message.received`` its devices get. Media bytes
are not in either: the network keeps them once, by sha256 (:attr:`.world.World.media`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import media_payloads
from ..media_types import ContactCard, Location, MediaKind, OutgoingMedia, QuickReply, ReceivedMedia, Template
from ..reply_types import Poll
from ..vcards import to_vcard


@dataclass(frozen=True)
class Body:
    type: str
    content: str  # message.received ``content``
    inbox: dict[str, Any] = field(default_factory=dict)  # inbox fields: text, caption, media, ...
    extra: dict[str, Any] = field(default_factory=dict)  # message.received sub-objects
    data: bytes | None = None  # the media's bytes, stored by the network under their sha256
    quoted: dict[str, Any] | None = None  # the message it replies to: {message_id, from, content}

    def inbox_fields(self) -> dict[str, Any]:
        """Every inbox field the decisions name, None where the kind has none."""
        names = ("text", "caption", "media", "location", "contact", "buttons", "poll")
        fields: dict[str, Any] = dict.fromkeys(names)
        fields.update(self.inbox)
        return {"type": self.type, **fields, "quoted": self.quoted}

    def attachment(self, data: bytes) -> ReceivedMedia | None:
        """The bytes for a recipient's devices, described as hashed once at the send."""
        media = self.inbox.get("media")
        if media is None:
            return None
        caption, filename = self.inbox.get("caption") or None, media["filename"] or None
        kind = MediaKind(self.type)
        return ReceivedMedia(kind, media["mimetype"], data, caption, filename, media["sha256"], media["size"])


def text(value: str) -> Body:
    return Body("text", value, {"text": value})


def media(sent: OutgoingMedia) -> Body:
    """A media message; the inbox describes the bytes (``mimetype, size, sha256, filename``)."""
    received = ReceivedMedia.of(
        MediaKind(sent.kind), sent.mimetype, sent.data, caption=sent.caption, filename=sent.filename
    )
    described = {
        "mimetype": sent.mimetype,
        "size": received.size,
        "sha256": received.sha256,
        "filename": sent.filename,
    }
    extra = {"media": media_payloads.media_object(received)}
    if sent.kind == MediaKind.AUDIO:
        described["ptt"] = extra["media"]["ptt"] = sent.ptt
    inbox: dict[str, Any] = {"caption": sent.caption, "media": described}
    content = sent.caption or (sent.filename or "" if sent.kind == MediaKind.DOCUMENT else "")
    return Body(str(sent.kind), content, inbox, extra, sent.data)


def location(place: Location) -> Body:
    shown = {
        "latitude": place.latitude,
        "longitude": place.longitude,
        "name": place.name,
        "address": place.address,
    }
    return Body(
        "location", place.name or "", {"location": shown}, {"location": media_payloads.location_object(place)}
    )


def contact(card: ContactCard) -> Body:
    inbox = {"contact": {"name": card.name, "phone": card.phone, "vcard": to_vcard(card)}}
    return Body("contact", card.name, inbox, {"contact": media_payloads.contact_object(card)})


def template(sent: Template) -> Body:
    """A template shows as its text with its quick replies (``buttons``) and ``footer``."""
    buttons = [{"id": b.id, "text": b.text} for b in sent.buttons]
    inbox = {"text": sent.text, "footer": sent.footer, "buttons": buttons}
    return Body("template", sent.text, inbox, media_payloads.buttons_object(sent.buttons, sent.footer))


def button_reply(reply: QuickReply) -> Body:
    """A tap on a template's quick reply, as the phone sends it back (``button_reply``)."""
    payload = {"id": reply.id, "text": reply.text}
    return Body(
        "button_reply", reply.text, {"text": reply.text, "button_reply": payload}, {"button_reply": payload}
    )


def poll(sent: Poll) -> Body:
    """A poll: the inbox shows its options and the votes it got (``votes``: voter JID → the
    options chosen); devices get the ``poll`` object neonize's adapter reads from the real one."""
    options = list(sent.options)
    shown = {"question": sent.question, "options": options, "multiple_answers": sent.multiple_answers}
    inbox = {"poll": {**shown, "votes": {}}}
    extra = {
        "poll": {
            "name": sent.question,
            "options": options,
            "selectable_count": 0 if sent.multiple_answers else 1,
        }
    }
    return Body("poll", sent.question, inbox, extra)
