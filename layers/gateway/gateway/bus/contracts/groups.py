"""Contracts of the commands on groups and communities.

People arrive as user JIDs or LIDs and groups as group JIDs, already checked by the API with
its own error codes (``gateway.groups.inputs``). The records answered (:class:`GroupInfo`,
:class:`MemberOutcome`, ...) are also the network port's own (``session_host.network.group_types``
re-exports them): an adapter's answer is the command's result, with nothing reshaped between.
"""

from __future__ import annotations

import binascii
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, StrictBool, StrictInt, model_validator

from gateway.bus.contracts.base import CommandArgs, CommandResult, GroupJid, Participant, Text


class ParticipantAction(StrEnum):
    ADD = "add"
    REMOVE = "remove"
    PROMOTE = "promote"
    DEMOTE = "demote"


class RequestAction(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"


class MemberAddMode(StrEnum):
    ADMIN = "admin"
    ALL = "all"


# --- arguments --------------------------------------------------------------------------------


class GroupRef(CommandArgs):
    """One group (or community)."""

    group_jid: GroupJid


class GroupOptionsArgs(CommandArgs):
    """The ``options`` of POST /groups (all off by default)."""

    announcement: StrictBool = False
    locked: StrictBool = False
    join_approval: StrictBool = False
    community: StrictBool = False
    parent_jid: GroupJid | None = None


class CreateGroupArgs(CommandArgs):
    name: Text
    participants: list[Participant]
    options: GroupOptionsArgs = GroupOptionsArgs()


class ParticipantsArgs(CommandArgs):
    group_jid: GroupJid
    action: ParticipantAction
    participants: list[Participant]


class GroupSettingsArgs(CommandArgs):
    """Only the fields given change; ``topic`` is the network's one description field."""

    name: str | None = None
    topic: str | None = None
    announce: StrictBool | None = None
    locked: StrictBool | None = None
    join_approval: StrictBool | None = None
    member_add_mode: MemberAddMode | None = None


class UpdateGroupArgs(CommandArgs):
    group_jid: GroupJid
    settings: GroupSettingsArgs

    @model_validator(mode="after")
    def _changes_something(self) -> UpdateGroupArgs:
        if not self.settings.model_dump(exclude_none=True):
            raise ValueError("settings must change something")
        return self


def _base64(value: str) -> str:
    try:
        binascii.a2b_base64(value, strict_mode=True)
    except binascii.Error:
        raise ValueError("must be base64") from None
    return value


class PictureArgs(CommandArgs):
    group_jid: GroupJid
    image_base64: Annotated[str, AfterValidator(_base64)]
    """Base64 of JPEG bytes (the API checked both)."""


class EphemeralArgs(CommandArgs):
    group_jid: GroupJid
    duration_seconds: StrictInt


class InviteArgs(CommandArgs):
    group_jid: GroupJid
    reset: StrictBool = False


class JoinArgs(CommandArgs):
    """An invite code (from a link), and for the code form also the group and the inviter."""

    code: Text
    group_jid: GroupJid | None = None
    inviter_jid: Participant | None = None


class CommunityLinkArgs(CommandArgs):
    community_jid: GroupJid
    group_jid: GroupJid


class PeopleArgs(CommandArgs):
    """Join requests to approve or reject."""

    group_jid: GroupJid
    action: RequestAction
    participants: list[Participant]


# --- results ----------------------------------------------------------------------------------


class GroupMember(CommandResult):
    """A person in a group. ``jid`` is the user JID when the network gives the phone number,
    else the LID; ``lid`` is the LID when known as well."""

    jid: str
    is_admin: bool = False
    is_super_admin: bool = False
    lid: str | None = None


class GroupInfo(CommandResult):
    """A group (or community) as the network describes it; times are epoch seconds.

    ``member_add_mode`` and ``join_approval`` are None when the adapter cannot read them.
    """

    jid: str
    name: str
    topic: str
    owner: str | None
    created_at: float
    is_announce: bool
    is_locked: bool
    join_approval: bool | None
    member_add_mode: MemberAddMode | None
    ephemeral_duration: int
    is_community: bool
    parent_jid: str | None
    participants: tuple[GroupMember, ...] = ()

    def member(self, jid: str) -> GroupMember | None:
        """The participant ``jid`` names (by user JID or LID), if any."""
        return next((p for p in self.participants if jid in (p.jid, p.lid)), None)

    def is_admin(self, jid: str) -> bool:
        member = self.member(jid)
        return member is not None and member.is_admin


class MemberOutcome(CommandResult):
    """One person's part of a participant or join-request operation (the API's ``MemberResult``):
    ``status`` is ``ok`` or a per-person code (``not_found``, ``already_member``, ``not_member``,
    ``invite_sent``, ``not_allowed``); the admin flags are the person's after the operation."""

    jid: str
    status: str
    is_admin: bool = False
    is_super_admin: bool = False


class OneGroup(CommandResult):
    group: GroupInfo


class GroupList(CommandResult):
    groups: list[GroupInfo]


class GroupCreated(CommandResult):
    """A new group, and what became of each person asked for."""

    group: GroupInfo
    participants: tuple[MemberOutcome, ...] = ()


class MemberOutcomes(CommandResult):
    participants: list[MemberOutcome]


class PictureSet(CommandResult):
    picture_id: str


class EphemeralSet(CommandResult):
    duration_seconds: int


class InviteLink(CommandResult):
    invite_link: str


class JoinOutcome(CommandResult):
    """``pending_approval``: the request waits for an admin; ``group_jid`` may be None then."""

    group_jid: str | None
    pending_approval: bool


class PendingJoinRequest(CommandResult):
    """Someone asking to join a group an admin must approve (the API's ``JoinRequestEntry``)."""

    jid: str
    requested_at: float


class JoinRequestList(CommandResult):
    requests: list[PendingJoinRequest]
