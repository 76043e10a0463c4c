"""Request bodies of the group routes. Unknown fields are ignored, as on every route.

The model checks shapes (types, lengths, enums), and a failure is 400 ``invalid_request``.
What has a code of its own is checked by :mod:`gateway.groups.inputs` instead, so these
fields are plain strings or integers here: people (``invalid_participant``), group JIDs
(``invalid_group_jid``), the picture (``invalid_image``), the timer (``invalid_duration``)
and the invite link (``invalid_invite_link``). The published schema still says exactly what
is accepted (patterns, enums, which fields go together), and where it cannot say it exactly
it is the stricter: anything valid by the document is accepted.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StrictBool, StringConstraints

from gateway.groups.codes import INVITE_HOST
from gateway.jids import GROUP_JID_PATTERN, PARTICIPANT_PATTERN
from gateway.web.deferred import DeferredModel
from gateway.web.fields import JsonInteger, NonBlank, omittable

NAME_MAX = 100
TOPIC_MAX = 2048  # the network's description limit
MAX_PARTICIPANTS = 1024  # the network's group size limit: no request names more people
EPHEMERAL_DURATIONS = (0, 86400, 604800, 7776000)
"""The disappearing-message timers the network takes: off, 24 hours, 7 days, 90 days."""
MAX_IMAGE_BASE64 = 192 * 1024
"""A group picture travels on the command bus inside one SQS message (256 KiB): 192 KiB of
base64 (144 KiB of JPEG) leaves room for the rest; the network keeps pictures at 640x640."""

_INVITE_HOST = INVITE_HOST.replace(".", r"\.")
INVITE_LINK_PATTERN = rf"^(?:(?!{_INVITE_HOST}/)[^\n])*{_INVITE_HOST}/[^/?#\n]+(?:[?#][^\n]*)?$"
"""A link holding ``chat.whatsapp.com/<code>`` (``gateway.groups.invites.code_of_link``)."""
INVITE_CODE_PATTERN = r"^[A-Za-z0-9_-]{1,128}$"
JPEG_BASE64_PATTERN = r"^/9j/(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
"""Base64 of bytes starting with the JPEG magic ``FF D8 FF`` (which encodes as ``/9j/``)."""

GroupName = Annotated[NonBlank, StringConstraints(max_length=NAME_MAX)]
Topic = Annotated[str, StringConstraints(max_length=TOPIC_MAX)]
GroupJid = Annotated[
    str, Field(json_schema_extra={"pattern": GROUP_JID_PATTERN}, examples=["120363000000000001@g.us"])
]
"""A group or community JID, checked by the route (400 ``invalid_group_jid``)."""
Participants = Annotated[
    list[str],
    Field(
        max_length=MAX_PARTICIPANTS,
        description="Phone numbers (digits, country code first), user JIDs or LIDs; phone numbers "
        "become user JIDs. Any other string: 400 `invalid_participant`",
        examples=[["15551234567", "15557654321@s.whatsapp.net"]],
        json_schema_extra={"items": {"type": "string", "pattern": PARTICIPANT_PATTERN}},
    ),
]


class GroupOptions(DeferredModel):
    """The `options` of POST /groups; every flag is off unless given."""

    announcement: StrictBool = Field(default=False, description="only admins send messages")
    locked: StrictBool = Field(default=False, description="only admins edit the group's info")
    join_approval: StrictBool = Field(default=False, description="new members need an admin's approval")
    community: StrictBool = Field(default=False, description="create a community (a parent of groups)")
    parent_jid: GroupJid | None = omittable(
        {"pattern": GROUP_JID_PATTERN},
        description="A community the device administers: the new group is linked into it",
    )


class CreateGroupRequest(DeferredModel):
    name: GroupName = Field(description=f"The group's subject, 1 to {NAME_MAX} characters", examples=["Trip"])
    participants: Participants
    options: GroupOptions = Field(default_factory=GroupOptions)


class ParticipantsRequest(DeferredModel):
    action: Literal["add", "remove", "promote", "demote"] = Field(
        default="add", description="What to do with each person; `add` when left out"
    )
    participants: Participants


class RemoveParticipantsRequest(DeferredModel):
    participants: Participants


_SETTINGS = ("name", "topic", "description", "announcement", "locked", "join_approval", "member_add_mode")


class UpdateGroupRequest(DeferredModel):
    """PATCH /groups/{jid}: fields left out (or null) stay as they are; at least one is given.
    `topic` and `description` are the network's one description field: give either (both
    only with the same text)."""

    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [{"required": [name]} for name in _SETTINGS],
            "not": {"required": ["topic", "description"]},
        }
    )

    name: GroupName | None = omittable(description=f"The subject, 1 to {NAME_MAX} characters")
    topic: Topic | None = omittable(description="The description; empty removes it")
    description: Topic | None = omittable(description="The same field as `topic`")
    announcement: StrictBool | None = omittable(description="only admins send messages")
    locked: StrictBool | None = omittable(description="only admins edit the group's info")
    join_approval: StrictBool | None = omittable(description="new members need an admin's approval")
    member_add_mode: Literal["admin", "all"] | None = omittable(
        description="Who may add members: admins only, or every member"
    )


class PictureRequest(DeferredModel):
    image_base64: str = Field(
        description="A JPEG image, base64 (standard alphabet, padded), at most "
        f"{MAX_IMAGE_BASE64 // 1024} KiB of base64; anything else: 400 `invalid_image`",
        json_schema_extra={"pattern": JPEG_BASE64_PATTERN, "maxLength": MAX_IMAGE_BASE64},
    )


class EphemeralRequest(DeferredModel):
    duration_seconds: JsonInteger = Field(
        description="0 (off), 86400 (24 hours), 604800 (7 days) or 7776000 (90 days); another "
        "integer: 400 `invalid_duration`",
        json_schema_extra={"enum": list(EPHEMERAL_DURATIONS)},
    )


class JoinRequest(DeferredModel):
    """POST /groups/join, in one of two forms: `link`, or `invite_code` with `group_jid`
    and `inviter_jid`. Both forms at once: 400 `invalid_request`."""

    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {
                    "required": ["link"],
                    "not": {
                        "anyOf": [
                            {"required": [name]} for name in ("invite_code", "group_jid", "inviter_jid")
                        ]
                    },
                },
                {"required": ["invite_code", "group_jid", "inviter_jid"], "not": {"required": ["link"]}},
            ]
        }
    )

    link: str | None = omittable(
        {"pattern": INVITE_LINK_PATTERN},
        max_length=2048,
        description=f"An invite link, `https://{INVITE_HOST}/<code>`; one without `{INVITE_HOST}/`: "
        "400 `invalid_invite_link`",
        examples=[f"https://{INVITE_HOST}/AbCdEfGhIjKlMnOpQrStUv"],
    )
    invite_code: str | None = omittable(
        pattern=INVITE_CODE_PATTERN,
        description="The code form: the invite code an invitation message carried",
    )
    group_jid: str | None = omittable(
        {"pattern": GROUP_JID_PATTERN}, description="The code form: the group the invitation is for"
    )
    inviter_jid: str | None = omittable(
        {"pattern": PARTICIPANT_PATTERN},
        description="The code form: who sent the invitation (phone number, user JID or LID)",
    )


class CommunityLinkRequest(DeferredModel):
    group_jid: GroupJid = Field(description="The child group to link into (or unlink from) the community")


class AnswerRequestsRequest(DeferredModel):
    action: Literal["approve", "reject"] = Field(description="Let the people in, or turn them away")
    participants: Participants
