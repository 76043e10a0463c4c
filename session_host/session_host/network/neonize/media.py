"""Media messages on neonize: building the ones a session sends (:mod:`.send_ops` sends
them), reading and downloading the ones it receives (:func:`with_media`, called by the
handlers).

Choices, read from neonize 0.5.2's source:

- **Media** is uploaded from bytes with ``client.upload(data, MediaType)`` and the message
  built here from the upload's answer, not with ``build_*_message``: those builders take the
  MIME type from libmagic (not the one the gateway was given), decode images with PIL for a
  thumbnail, run ffmpeg for videos and re-encode stickers. Built here, the gateway's MIME
  type, caption, file name and ``ptt`` reach the network unchanged; no thumbnail is sent
  (phones show a placeholder until they download). Bytes only: a ``str`` would be fetched
  by neonize without a timeout.
- **Location** and **contact** are ``LocationMessage`` and ``ContactMessage`` (a vCard from
  :mod:`..vcards`).
- **Received media** is held to the send limits (:func:`~..media_types.received_max_bytes`):
  the size the sender declared (``fileLength``) is checked first, and a file over the limit
  is never downloaded (``media.error: too_large``). Otherwise ``client.download_any(message)``
  runs on the process's download pool (:mod:`.downloads`), never on the thread that
  delivers the session's events, with ``NeonizeTimings.media_deadline`` (60 s); past it
  ``media.error: timeout``. The event waits for its download, so the device's later events
  stay behind it (events of one device reach the sink in order); other devices' events do
  not wait. The download does not hold the process-wide gate: it is a network wait, and a
  stop or connect of another device must not queue behind it. The bytes ride beside
  ``message.received`` as :class:`~..media_types.ReceivedMedia`; a download the network
  refuses gives ``media.error: download_failed``. In every case the message is reported.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Any

from neonize.proto.Neonize_pb2 import UploadResponse
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import (
    AudioMessage,
    ContactMessage,
    DocumentMessage,
    ImageMessage,
    LocationMessage,
    Message,
    StickerMessage,
    VideoMessage,
)
from neonize.utils.enum import MediaType

from .. import payloads
from ..media_types import (
    ContactCard,
    Location,
    MediaKind,
    OutgoingMedia,
    ReceivedMedia,
    received_max_bytes,
)
from ..port import NetworkEvent
from ..vcards import to_vcard
from .downloads import DOWNLOADS, DownloadTimeout
from .link import DeviceLink

logger = logging.getLogger(__name__)

UPLOAD_TYPES: dict[MediaKind, MediaType] = {
    MediaKind.IMAGE: MediaType.MediaImage,
    MediaKind.VIDEO: MediaType.MediaVideo,
    MediaKind.AUDIO: MediaType.MediaAudio,
    MediaKind.DOCUMENT: MediaType.MediaDocument,
    MediaKind.STICKER: MediaType.MediaImage,  # whatsmeow uploads stickers as images
}


def media_message(media: OutgoingMedia, upload: UploadResponse) -> Message:
    """The message of uploaded media, with the gateway's MIME type, caption and file name."""
    common = {
        "URL": upload.url,
        "directPath": upload.DirectPath,
        "mediaKey": upload.MediaKey,
        "fileEncSHA256": upload.FileEncSHA256,
        "fileSHA256": upload.FileSHA256,
        "fileLength": upload.FileLength,
        "mimetype": media.mimetype,
        "mediaKeyTimestamp": int(time.time()),
    }
    caption = media.caption or None
    match MediaKind(media.kind):
        case MediaKind.IMAGE:
            return Message(imageMessage=ImageMessage(caption=caption, **common))
        case MediaKind.VIDEO:
            return Message(videoMessage=VideoMessage(caption=caption, **common))
        case MediaKind.AUDIO:
            return Message(audioMessage=AudioMessage(PTT=media.ptt, **common))
        case MediaKind.DOCUMENT:
            name = media.filename or None
            return Message(
                documentMessage=DocumentMessage(caption=caption, fileName=name, title=name, **common)
            )
        case MediaKind.STICKER:
            return Message(stickerMessage=StickerMessage(**common))


def location_message(location: Location) -> Message:
    return Message(
        locationMessage=LocationMessage(
            degreesLatitude=location.latitude,
            degreesLongitude=location.longitude,
            name=location.name or None,
            address=location.address or None,
        )
    )


def contact_message(card: ContactCard) -> Message:
    return Message(contactMessage=ContactMessage(displayName=card.name, vcard=to_vcard(card)))


_MEDIA_PARTS = (
    ("imageMessage", MediaKind.IMAGE),
    ("videoMessage", MediaKind.VIDEO),
    ("ptvMessage", MediaKind.VIDEO),
    ("audioMessage", MediaKind.AUDIO),
    ("documentMessage", MediaKind.DOCUMENT),
    ("stickerMessage", MediaKind.STICKER),
)


def media_part(message: Message) -> tuple[MediaKind, Message] | None:
    """The media a received message carries (a captioned document opened), or None."""
    if message.HasField("documentWithCaptionMessage"):
        message = message.documentWithCaptionMessage.message
    for name, kind in _MEDIA_PARTS:
        if name in Message.DESCRIPTOR.fields_by_name and message.HasField(name):
            return kind, message
    return None


def _part(holder: Message, kind: MediaKind) -> Any:
    return getattr(holder, next(name for name, k in _MEDIA_PARTS if k is kind and holder.HasField(name)))


def declared_size(message: Message) -> int | None:
    """The size the sender declared for a received media message (``fileLength``), or None."""
    found = media_part(message)
    if found is None:
        return None
    part = _part(found[1], found[0])
    return part.fileLength if part.HasField("fileLength") else None


def received_media(message: Message, data: bytes) -> ReceivedMedia | None:
    """The downloaded bytes of a received media message, described from its protobuf."""
    found = media_part(message)
    if found is None:
        return None
    kind, holder = found
    part = _part(holder, kind)
    caption = getattr(part, "caption", "") or None
    filename = getattr(part, "fileName", "") or None
    return ReceivedMedia.of(kind, part.mimetype, data, caption=caption, filename=filename)


def with_media(link: DeviceLink, event: NetworkEvent, message: Message) -> NetworkEvent:
    """``message.received`` with the bytes of its media attached, or with ``media.error``.

    Runs on the session's event thread and waits there for the download (on the pool,
    within the deadline), so the device's events stay in order.
    """
    found = media_part(message)
    if found is None or not isinstance(event.data.get("media"), dict):
        return event
    kind = found[0]
    limit = received_max_bytes(kind)
    declared = declared_size(message)
    if declared is not None and declared > limit:
        logger.info(
            "neonize %s: %s of %d bytes over the %d limit, not downloaded",
            link.device_id,
            kind,
            declared,
            limit,
        )
        return payloads.media_not_kept(event, "too_large")
    with link.mutex:
        runner = link.runner
    if runner is None or runner.stopping or not runner.alive:
        return payloads.media_not_kept(event, "download_failed")
    client = runner.client
    try:
        data = DOWNLOADS.fetch(
            link.device_id,
            lambda: bytes(client.download_any(message) or b""),
            link.timings.media_deadline,
        )
    except DownloadTimeout as error:
        logger.warning("neonize %s: media not downloaded: %s", link.device_id, error)
        return payloads.media_not_kept(event, "timeout")
    except Exception as error:  # the library's DownloadError and whatever else it raises
        logger.warning("neonize %s: media not downloaded: %s", link.device_id, error)
        return payloads.media_not_kept(event, "download_failed")
    if len(data) > limit:  # the sender declared less than it sent
        return payloads.media_not_kept(event, "too_large")
    return replace(event, attachment=received_media(message, data))
