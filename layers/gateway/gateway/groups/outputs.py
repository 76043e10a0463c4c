"""Response bodies of the group routes, built by :mod:`gateway.groups.service` from the session
host's records (the results of the group commands' contracts, :mod:`gateway.bus.contracts.groups`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gateway.web.fields import Timestamp
from gateway.web.outputs import OutputModel, Succeeded

GroupJidField = Field(description="The group's (or community's) JID, `<digits>@g.us`")


class Participant(OutputModel):
    jid: str = Field(description="The person's user JID, or its LID where the network hides the phone number")
    is_admin: bool
    is_super_admin: bool = Field(description="The group's creator (an admin the others cannot remove)")


class Group(OutputModel):
    """A group or community as the network describes it, read from the device's session."""

    jid: str = GroupJidField
    name: str = Field(description="The subject")
    topic: str = Field(description="The description; empty when there is none")
    description: str = Field(description="The same text as `topic`: the network has one description field")
    owner: str | None = Field(
        description="Who created it (user JID or LID); null when the network does not say"
    )
    created_at: Timestamp
    is_announce: bool = Field(description="Only admins send messages")
    is_locked: bool = Field(description="Only admins edit the group's info")
    join_approval: bool | None = Field(
        description="New members need an admin's approval; null when the network adapter cannot read it"
    )
    member_add_mode: Literal["admin", "all"] | None = Field(
        description="Who may add members; null when the network adapter cannot read it"
    )
    ephemeral_duration: int = Field(description="The disappearing-message timer in seconds; 0 when off")
    is_community: bool = Field(description="A community: a parent of linked groups")
    parent_jid: str | None = Field(description="The community the group is linked into, or null")
    members_count: int = Field(description="How many people are in it")
    participants: list[Participant] = Field(description="Everyone in it, with their admin flags")


class MemberResult(OutputModel):
    """One person of a participant operation, with the flags it has afterwards."""

    jid: str
    is_admin: bool
    is_super_admin: bool
    status: str = Field(
        description="`ok`, or why not for this person: `not_found` (no such account), `already_member`, "
        "`not_member`, `invite_sent` (the network sent an invitation instead), `not_allowed` (e.g. a "
        "super admin cannot be removed or demoted)"
    )


class RequestResult(OutputModel):
    jid: str
    status: str = Field(description="`ok`, or `not_found` when this person has no request waiting")


class JoinRequestEntry(OutputModel):
    jid: str = Field(description="Who asks to join")
    requested_at: Timestamp


class GroupResponse(Succeeded):
    group: Group


class CreatedGroupResponse(Succeeded):
    group: Group
    participants: list[MemberResult] = Field(
        description="What became of each person asked for, in the order given (`ok`: in the group)"
    )


class GroupListResponse(Succeeded):
    groups: list[Group] = Field(description="Every group and community the device is in")


class ParticipantsResponse(Succeeded):
    group_jid: str = GroupJidField
    participants: list[MemberResult] = Field(description="One per person asked for, in the order given")


class PictureResponse(Succeeded):
    picture_id: str = Field(description="The network's id of the new picture")


class EphemeralResponse(Succeeded):
    duration_seconds: int = Field(description="The timer now applied, in seconds; 0 when off")


class InviteLinkResponse(Succeeded):
    group_jid: str = GroupJidField
    invite_link: str = Field(examples=["https://chat.whatsapp.com/AbCdEfGhIjKlMnOpQrStUv"])


class InviteResetResponse(InviteLinkResponse):
    invite_link: str = Field(description="The new link: the previous one no longer works")
    reset_at: Timestamp


class JoinResponse(Succeeded):
    group_jid: str | None = Field(
        description="The group joined; may be null while the request waits for approval"
    )
    pending_approval: bool = Field(
        description="true: an admin must approve first (`group.joined` follows when one does)"
    )
    approval_request_jid: str | None = Field(
        description="While approval is pending: the JID the join request is filed under (the "
        "group's, as the network answers it); null otherwise"
    )


class DoneResponse(Succeeded):
    """The operation was done; nothing else to say."""


class JoinRequestsResponse(Succeeded):
    group_jid: str = GroupJidField
    requests: list[JoinRequestEntry] = Field(description="The requests waiting for an admin, oldest first")


class AnsweredRequestsResponse(Succeeded):
    group_jid: str = GroupJidField
    participants: list[RequestResult] = Field(description="One per person asked for, in the order given")
