"""What the port sends and receives besides text: media, locations, contact cards, templates.

The network's own limits (which MIME types each kind takes, how large it may be) live here
once, in :data:`MEDIA_RULES`; :mod:`.message_checks` applies them for both adapters.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum

from gateway.media.limits import MB, URL_DOCUMENT_MAX_BYTES, URL_MAX_BYTES


class MediaKind(StrEnum):
    """The media kinds a message carries (the inbox and ``message_type`` use these names)."""

    IMAGE = "image"
    VIDEO = "video"
    AUDIO = "audio"
    DOCUMENT = "document"
    STICKER = "sticker"


@dataclass(frozen=True)
class MediaRule:
    """What the network takes for one kind: a MIME type prefix (or exact type) and a size."""

    mime_prefix: str  # "" takes any type
    max_bytes: int
    exact: bool = False


MEDIA_RULES: dict[MediaKind, MediaRule] = {
    MediaKind.IMAGE: MediaRule("image/", URL_MAX_BYTES),
    MediaKind.VIDEO: MediaRule("video/", URL_MAX_BYTES),
    MediaKind.AUDIO: MediaRule("audio/", URL_MAX_BYTES),
    MediaKind.DOCUMENT: MediaRule("", URL_DOCUMENT_MAX_BYTES),
    MediaKind.STICKER: MediaRule("image/webp", 1 * MB, exact=True),
}
"""The network's limits per kind: the gateway converts (stickers to WebP) before sending."""


def received_max_bytes(kind: MediaKind | str) -> int:
    """The largest received media of ``kind`` the gateway keeps: the send limit of that kind
    (16 MB, 64 MB for documents, 1 MB for stickers). Beyond it: ``media.error: too_large``."""
    return MEDIA_RULES[MediaKind(kind)].max_bytes


@dataclass(frozen=True)
class OutgoingMedia:
    """Media a device sends; ``data`` is the file itself, never a path or URL (neonize would
    fetch a string argument without a timeout)."""

    kind: MediaKind
    data: bytes
    mimetype: str
    caption: str | None = None
    filename: str | None = None
    ptt: bool = False  # an audio sent as a voice note


@dataclass(frozen=True)
class Location:
    latitude: float
    longitude: float
    name: str | None = None
    address: str | None = None


@dataclass(frozen=True)
class ContactCard:
    """One contact shared as a vCard: a display name and phone digits."""

    name: str
    phone: str


@dataclass(frozen=True)
class QuickReply:
    id: str
    text: str


@dataclass(frozen=True)
class Template:
    """A text with 1 to 3 quick-reply buttons (the recipient's tap comes back as ``button_reply``)."""

    text: str
    footer: str | None
    buttons: tuple[QuickReply, ...]


@dataclass(frozen=True)
class ReceivedMedia:
    """The bytes of a received media message, carried beside the event (never in its data)."""

    kind: MediaKind
    mimetype: str
    data: bytes
    caption: str | None
    filename: str | None
    sha256: str  # hex
    size: int

    @classmethod
    def of(
        cls, kind: MediaKind, mimetype: str, data: bytes, *, caption: str | None, filename: str | None
    ) -> ReceivedMedia:
        """Hash and size computed from the bytes, so they always match what is stored."""
        digest = hashlib.sha256(data).hexdigest()
        return cls(kind, mimetype, data, caption or None, filename or None, digest, len(data))
