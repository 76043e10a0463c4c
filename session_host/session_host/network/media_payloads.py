"""The sub-objects of ``message.received`` for media, places, contacts and templates.

Both adapters build them here (as :mod:`.payloads` builds the events), so a webhook consumer
cannot tell the adapters apart; the fields are documented in ``docs/events.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .media_types import ContactCard, Location, QuickReply, ReceivedMedia
from .vcards import to_vcard


def media_object(media: ReceivedMedia) -> dict[str, Any]:
    """``media`` of a received media message: what the bytes are, not where they are stored
    (the session host adds ``media_path`` once it stored :attr:`.NetworkEvent.attachment`)."""
    return {
        "mime_type": media.mimetype,
        "caption": media.caption or "",
        "size": media.size,
        "sha256": media.sha256,
        "filename": media.filename,
    }


def location_object(location: Location, *, is_live: bool = False) -> dict[str, Any]:
    """``location`` of a received place (``name`` and ``address`` empty when not given)."""
    return {
        "latitude": location.latitude,
        "longitude": location.longitude,
        "name": location.name or "",
        "address": location.address or "",
        "is_live": is_live,
    }


def contact_object(card: ContactCard, vcard: str | None = None) -> dict[str, Any]:
    """``contact`` of a shared contact: ``name`` and ``phone`` read from the vCard, and the
    vCard itself (``display_name`` as neonize named it before)."""
    return {
        "name": card.name,
        "phone": card.phone,
        "display_name": card.name,
        "vcard": vcard or to_vcard(card),
        "error": None,
    }


def unread_contact_object(display_name: str) -> dict[str, Any]:
    """``contact`` of a shared contact whose vCard is over :data:`.vcards.MAX_VCARD_BYTES`:
    neither read nor passed on (``phone`` and ``vcard`` null), only the name the message gave."""
    return {
        "name": display_name,
        "phone": None,
        "display_name": display_name,
        "vcard": None,
        "error": "too_large",
    }


def buttons_object(buttons: Sequence[QuickReply], footer: str | None) -> dict[str, Any]:
    """``buttons`` and ``footer`` of a received template (quick replies)."""
    return {"buttons": [{"id": b.id, "text": b.text} for b in buttons], "footer": footer or ""}
