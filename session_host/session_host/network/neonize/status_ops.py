"""Status (stories) operations of a neonize session (its ``status``).

What neonize 0.5.2 can do here (read from its source):

- **Reading the audience**: ``client.get_status_privacy()`` answers whatsmeow's
  ``[]StatusPrivacy``, one entry per type (``CONTACTS``, ``BLACKLIST``, ``WHITELIST``) with
  the people of its own list; the one in force has ``IsDefault``. None marked: ``contacts``.
- **Changing it** is ``UNSUPPORTED``: whatsmeow has no setter for the story audience, and
  neonize's ``set_privacy_setting`` (which covers other settings) raises even when the network
  took the change. Nothing is sent.
- **Publishing**: a message to ``status@broadcast``. A text story is an
  ``ExtendedTextMessage`` with ``backgroundArgb`` and ``font``, as WhatsApp's story editor
  writes it; an image or video story is built by ``build_image_message`` /
  ``build_video_message`` *from bytes*: given a ``str``, those builders read a path or fetch a
  URL without a timeout. The builders upload the media and find its mimetype themselves (the
  port's ``mimetype`` only chooses the builder); the video builder needs ``ffmpeg``. Bytes
  Pillow cannot read make the image builder raise an ``OSError``: ``INVALID``. Who sees
  the story is the network's business (the account's setting): the adapter cannot tell.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from neonize.client import NewClient
from neonize.proto.Neonize_pb2 import SendResponse
from neonize.proto.Neonize_pb2 import StatusPrivacy as NeonizeStatusPrivacy
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ExtendedTextMessage, Message

from gateway import jids
from gateway.failures.kinds import ErrorKind

from .. import status_checks
from ..port import NetworkError, SentMessage
from ..status_types import (
    MediaStatus,
    PrivacyType,
    StatusContent,
    StatusKind,
    StatusPrivacy,
    TextStatus,
)
from .catalog import unsupported
from .jids import jid_str, parse_jid
from .link import DeviceLink

_TYPES = {
    NeonizeStatusPrivacy.CONTACTS: PrivacyType.CONTACTS,
    NeonizeStatusPrivacy.WHITELIST: PrivacyType.WHITELIST,
    NeonizeStatusPrivacy.BLACKLIST: PrivacyType.BLACKLIST,
}


class NeonizeStatus:
    """A neonize session's ``status``: every library call through its link's gated call."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link

    async def get_status_privacy(self) -> StatusPrivacy:
        settings = await self._link.call("get status privacy", lambda client: client.get_status_privacy())
        return status_privacy(settings)

    async def set_status_privacy(self, privacy: StatusPrivacy) -> StatusPrivacy:
        status_checks.check_privacy(privacy)
        raise unsupported("set_status_privacy")

    async def publish_status(self, content: StatusContent) -> SentMessage:
        kind = status_checks.check_content(content)
        to = parse_jid(jids.STATUS_BROADCAST_JID)

        def publish(client: NewClient) -> SendResponse:
            return client.send_message(to, story_message(client, content, kind))

        response = await self._link.call("publish status", publish)
        timestamp = float(response.Timestamp) if response.Timestamp > 0 else time.time()
        return SentMessage(message_id=response.ID, chat_jid=jids.STATUS_BROADCAST_JID, timestamp=timestamp)


def status_privacy(settings: Iterable[NeonizeStatusPrivacy]) -> StatusPrivacy:
    """The setting in force among whatsmeow's answers (``IsDefault``), as the port's record."""
    current = next((entry for entry in settings if entry.IsDefault), None)
    if current is None or current.Type not in _TYPES:
        return StatusPrivacy(PrivacyType.CONTACTS)
    kind = _TYPES[current.Type]
    if kind is PrivacyType.CONTACTS:
        return StatusPrivacy(kind)
    people = (jid_str(jid) for jid in current.List)
    return StatusPrivacy(kind, tuple(dict.fromkeys(jid for jid in people if jid)))


def story_message(client: NewClient, content: StatusContent, kind: StatusKind) -> Message:
    """The message of a story (media uploaded on the way, by the library's builders)."""
    if isinstance(content, TextStatus):
        text = ExtendedTextMessage(text=content.text)
        if content.background_color is not None:
            text.backgroundArgb = status_checks.background_argb(content.background_color)
        if content.font is not None:
            text.font = content.font
        return Message(extendedTextMessage=text)
    assert isinstance(content, MediaStatus)
    data, caption = bytes(content.data), content.caption or None  # bytes: never a path or URL
    if kind is StatusKind.VIDEO:
        return client.build_video_message(data, caption=caption)
    try:
        return client.build_image_message(data, caption=caption)
    except (ConnectionError, TimeoutError):
        raise  # the network's, not the bytes'
    except OSError as exc:  # Pillow's UnidentifiedImageError: the bytes are no image it reads
        raise NetworkError(ErrorKind.INVALID, f"the image story is not an image: {exc}") from exc
