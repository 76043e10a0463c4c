"""What media really are, whatever the caller or the server said: the type is sniffed from
the first bytes (magic numbers), checked against the kind of the send, and the size against
the limit of how the bytes came (:mod:`gateway.media.limits`).

A sticker given as PNG or JPEG is converted to the 512 x 512 WebP the network expects.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Literal

from gateway.media.errors import MediaKindMismatch, MediaTooLarge
from gateway.media.limits import (
    INLINE_MAX_BYTES,
    MB,
    STATUS_VIDEO_MAX_BYTES,
    STICKER_SIDE_PIXELS,
    STICKER_SOURCE_MAX_PIXELS,
    URL_DOCUMENT_MAX_BYTES,
    URL_MAX_BYTES,
)

Kind = Literal["image", "video", "audio", "sticker", "document"]
Source = Literal["data", "url"]

OCTET_STREAM = "application/octet-stream"

# The types each kind of send accepts (documents accept anything).
ACCEPTED: dict[str, frozenset[str]] = {
    "image": frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"}),
    "video": frozenset({"video/mp4", "video/3gpp"}),
    "audio": frozenset({"audio/ogg", "audio/mpeg", "audio/mp4", "audio/aac", "audio/amr"}),
    "sticker": frozenset({"image/webp", "image/png", "image/jpeg"}),
}
_ACCEPTED_NAMES = {
    "image": "JPEG, PNG, GIF or WebP",
    "video": "MP4 or 3GP",
    "audio": "OGG/Opus, MP3, M4A, AAC or AMR",
    "sticker": "WebP, PNG or JPEG",
}


@dataclass(frozen=True)
class CheckedMedia:
    """Bytes ready to store and send, and their real type."""

    data: bytes
    mimetype: str


def sniff(data: bytes) -> str | None:
    """The MIME type the bytes' magic number says, or None when it says nothing known."""
    head = data[:64]
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    if head[4:8] == b"ftyp":
        return _iso_media_type(head[8:12])
    if head.startswith(b"OggS"):
        return "audio/ogg"
    if head.startswith(b"#!AMR"):
        return "audio/amr"
    if head.startswith(b"ID3"):
        return "audio/mpeg"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xF6 == 0xF0:  # ADTS, before MP3's sync
        return "audio/aac"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:  # MPEG audio frame sync
        return "audio/mpeg"
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if head.startswith(b"PK\x03\x04"):  # zip, and the Office Open XML / OpenDocument formats
        return "application/zip"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):  # legacy Office (OLE2)
        return "application/x-ole-storage"
    if head.startswith(b"\x1aE\xdf\xa3"):
        return "video/webm"
    return None


def _iso_media_type(brand: bytes) -> str:
    """ISO base media files (``ftyp`` box): the major brand tells audio from video."""
    if brand in (b"M4A ", b"M4B ", b"M4P "):
        return "audio/mp4"
    if brand.startswith((b"3gp", b"3g2")):
        return "video/3gpp"
    if brand == b"qt  ":
        return "video/quicktime"
    return "video/mp4"


def max_bytes(kind: Kind, source: Source, *, status: bool = False) -> int:
    """The size limit of media of ``kind`` given as ``source`` (inline data or a URL)."""
    if source == "data":
        return INLINE_MAX_BYTES
    if status and kind == "video":
        return STATUS_VIDEO_MAX_BYTES
    return URL_DOCUMENT_MAX_BYTES if kind == "document" else URL_MAX_BYTES


def check_size(size: int, kind: Kind, source: Source, *, status: bool = False) -> None:
    """Raise :class:`MediaTooLarge` when ``size`` bytes exceed the limit, saying what to do."""
    limit = max_bytes(kind, source, status=status)
    if size <= limit:
        return
    if source == "data":
        raise MediaTooLarge(f"data_base64 is over {limit // MB} MB once decoded: use url for media over 4 MB")
    raise MediaTooLarge(f"the media at url is over {limit // MB} MB, the limit for {kind} media")


def check(
    kind: Kind, data: bytes, source: Source, *, declared: str | None = None, status: bool = False
) -> CheckedMedia:
    """Check ``data`` for a send of ``kind`` and return what to store.

    ``declared`` is the type the caller or the server gave; it is trusted only for documents
    whose bytes say nothing known. Raises :class:`MediaTooLarge` or :class:`MediaKindMismatch`.
    """
    check_size(len(data), kind, source, status=status)
    if not data:
        raise MediaKindMismatch("the media are empty")
    sniffed = sniff(data)
    if kind == "document":
        return CheckedMedia(data, sniffed or _plain(declared) or OCTET_STREAM)
    if sniffed not in ACCEPTED[kind]:
        found = f"{sniffed} data" if sniffed else "data of an unknown type"
        raise MediaKindMismatch(
            f"{kind} must be {_ACCEPTED_NAMES[kind]}; got {found} (send it as a document?)"
        )
    if kind == "sticker" and sniffed != "image/webp":
        return CheckedMedia(to_webp_sticker(data), "image/webp")
    return CheckedMedia(data, sniffed)


def _plain(content_type: str | None) -> str | None:
    """``type/subtype`` of a Content-Type value, without parameters; None when not a MIME type."""
    if not content_type:
        return None
    value = content_type.split(";", 1)[0].strip().lower()
    return value if "/" in value else None


def to_webp_sticker(data: bytes) -> bytes:
    """A PNG or JPEG image as a 512 x 512 WebP sticker: scaled to fit, centered, transparent
    around (the network shows stickers on a square canvas)."""
    from PIL import Image, UnidentifiedImageError  # the API functions that never convert skip the import

    try:
        with Image.open(io.BytesIO(data)) as source:
            width, height = source.size
            if width * height > STICKER_SOURCE_MAX_PIXELS:
                raise MediaKindMismatch(
                    f"the sticker image is {width} x {height} pixels; send one of at most "
                    f"{STICKER_SOURCE_MAX_PIXELS // 1_000_000} million pixels"
                )
            image = source.convert("RGBA")
    except (UnidentifiedImageError, OSError) as error:
        raise MediaKindMismatch(
            "the sticker image could not be read; send a valid WebP, PNG or JPEG"
        ) from error
    image.thumbnail((STICKER_SIDE_PIXELS, STICKER_SIDE_PIXELS), Image.Resampling.LANCZOS)
    canvas = Image.new("RGBA", (STICKER_SIDE_PIXELS, STICKER_SIDE_PIXELS), (0, 0, 0, 0))
    canvas.paste(image, ((STICKER_SIDE_PIXELS - image.width) // 2, (STICKER_SIDE_PIXELS - image.height) // 2))
    out = io.BytesIO()
    canvas.save(out, format="WEBP", quality=80, method=4)
    return out.getvalue()
