"""The checks of group inputs that have codes of their own, made before anything is sent, so
bad input never reaches the session host: group JIDs (``invalid_group_jid``), people
(``invalid_participant``), the picture (``invalid_image``), the disappearing timer
(``invalid_duration``) and the join forms (``invalid_request``, ``invalid_invite_link``).

Addresses follow :mod:`gateway.jids` (refused, never repaired); phone numbers become user JIDs.
"""

from __future__ import annotations

import base64
import binascii

from gateway.bus.contracts.groups import JoinArgs
from gateway.errors import bounded
from gateway.failures.table import operation_error
from gateway.groups.codes import INVITE_HOST, OperationCode
from gateway.groups.invites import code_of_link
from gateway.groups.schemas import EPHEMERAL_DURATIONS, MAX_IMAGE_BASE64, JoinRequest
from gateway.jids import PHONE_RULE, is_group_jid, parse_participant

JPEG_MAGIC = b"\xff\xd8\xff"


def group_jid(value: str, field: str = "jid") -> str:
    """``value`` when it is a group (or community) JID, else 400 ``invalid_group_jid``."""
    if not is_group_jid(value):
        raise operation_error(
            OperationCode.INVALID_GROUP_JID,
            f"{field} must be a group JID (<digits>@g.us), not {bounded(value)!r}",
        )
    return value


def participants(values: list[str], field: str = "participants") -> list[str]:
    """The people named, as user JIDs or LIDs, in order and each once; any value that names no
    person is 400 ``invalid_participant`` naming the first such value."""
    found: list[str] = []
    for value in values:
        address = parse_participant(value)
        if address is None:
            raise operation_error(
                OperationCode.INVALID_PARTICIPANT,
                f"{field}: {bounded(value)!r} is not a phone number ({PHONE_RULE}), a user JID "
                "(<phone>@s.whatsapp.net) or a LID (<id>@lid)",
            )
        found.append(address.jid)
    return list(dict.fromkeys(found))


def participant(value: str, field: str) -> str:
    return participants([value], field)[0]


def jpeg_base64(value: str) -> str:
    """``value`` when it is base64 of a JPEG image that fits the command bus, else 400
    ``invalid_image``; the session host gets the same text."""
    if len(value) > MAX_IMAGE_BASE64:
        raise operation_error(
            OperationCode.INVALID_IMAGE,
            f"image_base64 may hold at most {MAX_IMAGE_BASE64 // 1024} KiB of base64",
        )
    try:
        data = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise operation_error(OperationCode.INVALID_IMAGE, "image_base64 is not base64") from None
    if not data.startswith(JPEG_MAGIC):
        raise operation_error(OperationCode.INVALID_IMAGE, "image_base64 is not a JPEG image")
    return value


def duration(seconds: int) -> int:
    if seconds not in EPHEMERAL_DURATIONS:
        raise operation_error(
            OperationCode.INVALID_DURATION,
            f"duration_seconds is one of {', '.join(map(str, EPHEMERAL_DURATIONS))}, not {seconds}",
        )
    return seconds


_CODE_FORM = ("invite_code", "group_jid", "inviter_jid")


def invite(body: JoinRequest) -> JoinArgs:
    """The invite of a join body, as the session host takes it: the link form or the code
    form, exactly one of them."""
    code_form = {name: getattr(body, name) for name in _CODE_FORM if getattr(body, name) is not None}
    if body.link is not None:
        if code_form:
            raise operation_error(
                OperationCode.INVALID_REQUEST,
                f"give either link or the code form ({', '.join(_CODE_FORM)}), not both",
            )
        code = code_of_link(body.link)
        if code is None:
            raise operation_error(
                OperationCode.INVALID_INVITE_LINK,
                f"link must contain {INVITE_HOST}/ followed by the invite code",
            )
        return JoinArgs(code=code)
    missing = [name for name in _CODE_FORM if name not in code_form]
    if len(missing) == len(_CODE_FORM):
        raise operation_error(OperationCode.INVALID_REQUEST, f"give link, or {', '.join(_CODE_FORM)}")
    if missing:
        raise operation_error(
            OperationCode.INVALID_REQUEST,
            f"the code form needs {', '.join(_CODE_FORM)}: {', '.join(missing)} missing",
        )
    return JoinArgs(
        code=code_form["invite_code"],
        group_jid=group_jid(code_form["group_jid"], "group_jid"),
        inviter_jid=participant(code_form["inviter_jid"], "inviter_jid"),
    )
