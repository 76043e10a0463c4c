"""The input rules of the presence and profile operations (:mod:`.profile_types`), applied by
both adapters before anything is sent: what breaks them is ``INVALID``."""

from __future__ import annotations

from gateway import jids
from gateway.bus.contracts.profile import MAX_ABOUT_CHARS, MAX_NAME_CHARS
from gateway.failures.kinds import ErrorKind
from gateway.media import kinds

from .port import NetworkError


def check_name(name: str) -> str:
    """``name`` when it is a push name the network takes: 1 to 25 characters, not blank."""
    if not name.strip() or len(name) > MAX_NAME_CHARS:
        raise NetworkError(ErrorKind.INVALID, f"a name is 1 to {MAX_NAME_CHARS} characters, not blank")
    return name


def check_about(about: str) -> str:
    """``about`` when it is an About text the network takes: 1 to 139 characters, not blank."""
    if not about.strip() or len(about) > MAX_ABOUT_CHARS:
        raise NetworkError(
            ErrorKind.INVALID, f"an About text is 1 to {MAX_ABOUT_CHARS} characters, not blank"
        )
    return about


def check_picture(jpeg: bytes) -> bytes:
    """``jpeg`` when it is a JPEG image (by its first bytes)."""
    if kinds.sniff(jpeg) != "image/jpeg":
        raise NetworkError(ErrorKind.INVALID, "a profile picture is a JPEG image")
    return jpeg


def check_person(jid: str) -> str:
    """``jid`` when it names a person (a user JID or a LID)."""
    if not (jids.is_user_jid(jid) or jids.is_lid(jid)):
        raise NetworkError(ErrorKind.INVALID, f"{jid!r} is neither a user JID nor a LID")
    return jid
