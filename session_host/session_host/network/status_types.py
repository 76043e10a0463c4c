"""The status (stories) part of the network port: who sees the device's stories, and what
a story holds.

Both adapters implement :class:`StatusOperations` (a session's ``status``) and check
inputs with :mod:`.status_checks` before anything is sent, so they refuse the same inputs
with the same kind (``INVALID``). Stories go to
:data:`gateway.jids.STATUS_BROADCAST_JID`, as WhatsApp's clients send them.

Text stories carry what WhatsApp's own story editor sets on an ``ExtendedTextMessage``: a
background colour (``backgroundArgb``, opaque here: ``#RRGGBB`` becomes ``0xFFRRGGBB``) and a
font, one of the ``ExtendedTextMessage.FontType`` values of whatsmeow's protobufs
(:data:`STORY_FONTS`; the values 3 to 5 do not exist there).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

# The command bus's contracts name the audiences; the port takes them as they arrive.
from gateway.bus.contracts.status import PrivacyType as PrivacyType

if TYPE_CHECKING:  # port.py imports this module
    from .port import SentMessage


class StatusKind(StrEnum):
    TEXT = "text"
    IMAGE = "image"
    VIDEO = "video"


STORY_FONTS: dict[int, str] = {
    0: "SYSTEM",
    1: "SYSTEM_TEXT",
    2: "FB_SCRIPT",
    6: "SYSTEM_BOLD",
    7: "MORNINGBREEZE_REGULAR",
    8: "CALISTOGA_REGULAR",
    9: "EXO2_EXTRABOLD",
    10: "COURIERPRIME_BOLD",
}
"""The fonts a text story may use: ``ExtendedTextMessage.FontType`` of whatsmeow's protobufs
(a neonize test checks that they still match)."""


@dataclass(frozen=True)
class StatusPrivacy:
    """The account's story audience: ``list`` holds user JIDs (empty for ``contacts``)."""

    type: PrivacyType
    list: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type.value, "list": list(self.list)}


@dataclass(frozen=True)
class TextStatus:
    """A text story; ``background_color`` is ``#RRGGBB``, ``font`` a key of :data:`STORY_FONTS`."""

    text: str
    background_color: str | None = None
    font: int | None = None

    @property
    def kind(self) -> StatusKind:
        return StatusKind.TEXT


@dataclass(frozen=True)
class MediaStatus:
    """An image or video story, as bytes (never a path or URL: the gateway fetched it
    already, within its own size and time limits); ``mimetype`` says which kind it is."""

    data: bytes
    mimetype: str
    caption: str = ""

    @property
    def kind(self) -> StatusKind | None:
        """``image`` or ``video`` by the mimetype; None for anything else (refused)."""
        if self.mimetype.startswith("image/"):
            return StatusKind.IMAGE
        if self.mimetype.startswith("video/"):
            return StatusKind.VIDEO
        return None


StatusContent = TextStatus | MediaStatus


class StatusOperations(Protocol):
    """What a device session does with stories; every method fails with
    :class:`~.port.NetworkError` (``NOT_CONNECTED``: nothing was sent)."""

    async def get_status_privacy(self) -> StatusPrivacy:
        """The account's story audience as the network keeps it.

        Raises ``NOT_CONNECTED``, or ``NETWORK``/``TIMEOUT`` when the network does not answer.
        """

    async def set_status_privacy(self, privacy: StatusPrivacy) -> StatusPrivacy:
        """Change the story audience; answers the setting now in force.

        ``INVALID`` (:func:`.status_checks.check_privacy`: a whitelist with an empty list, a bad JID) before
        anything is sent. neonize: always ``UNSUPPORTED``, nothing sent (neonize 0.5.2 has no
        setter for it; ``set_privacy_setting`` raises even when the network took it).
        """

    async def publish_status(self, content: StatusContent) -> SentMessage:
        """Publish a story to :data:`gateway.jids.STATUS_BROADCAST_JID`; the answer's
        ``chat_jid`` is that JID. ``INVALID`` (:func:`.status_checks.check_content`: empty text, bad colour
        or font, neither image nor video) before anything is sent; ``NOT_CONNECTED``."""
