"""Input rules both adapters apply to status operations before anything is sent.

Kept in one place so the adapters refuse the same inputs with the same kind (``INVALID``).
"""

from __future__ import annotations

import re

from gateway import jids
from gateway.failures.kinds import ErrorKind

from .port import NetworkError
from .status_types import STORY_FONTS, PrivacyType, StatusContent, StatusKind, StatusPrivacy, TextStatus

_COLOR = re.compile(r"#[0-9A-Fa-f]{6}")


def background_argb(color: str) -> int:
    """``#RRGGBB`` as the opaque ARGB integer of ``ExtendedTextMessage.backgroundArgb``."""
    return 0xFF000000 | int(color[1:], 16)


def check_privacy(privacy: StatusPrivacy) -> StatusPrivacy:
    """The setting with its list in order and without repeats; ``INVALID`` for a whitelist
    naming nobody, a list on ``contacts``, or an entry that is no user JID."""
    kind = PrivacyType(privacy.type)
    people = tuple(dict.fromkeys(privacy.list))
    bad = [jid for jid in people if not jids.is_user_jid(jid)]
    if bad:
        raise NetworkError(ErrorKind.INVALID, f"not user JIDs: {', '.join(bad)}")
    if kind is PrivacyType.WHITELIST and not people:
        raise NetworkError(ErrorKind.INVALID, "a whitelist must name at least one contact")
    if kind is PrivacyType.CONTACTS and people:
        raise NetworkError(ErrorKind.INVALID, "the contacts setting takes no list")
    return StatusPrivacy(kind, people)


def check_content(content: StatusContent) -> StatusKind:
    """The story's kind; ``INVALID`` for an empty text or media, a bad colour or font, or a
    mimetype that is neither image nor video."""
    if isinstance(content, TextStatus):
        if not content.text:
            raise NetworkError(ErrorKind.INVALID, "the story's text is empty")
        if content.background_color is not None and not _COLOR.fullmatch(content.background_color):
            raise NetworkError(ErrorKind.INVALID, "background_color must be #RRGGBB")
        if content.font is not None and content.font not in STORY_FONTS:
            raise NetworkError(ErrorKind.INVALID, f"font must be one of {sorted(STORY_FONTS)}")
        return content.kind
    if not isinstance(content.data, bytes) or not content.data:
        raise NetworkError(ErrorKind.INVALID, "a media story needs its bytes")
    kind = content.kind
    if kind is None:
        message = f"a story is an image or a video, not {content.mimetype!r}"
        raise NetworkError(ErrorKind.INVALID, message)
    return kind
