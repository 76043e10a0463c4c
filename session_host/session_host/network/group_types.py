"""The group part of the network port: what a device session does with groups and communities,
and the records it answers with.

Both adapters implement :class:`GroupOperations` (a session's ``groups``). Inputs are
already checked by the API with :mod:`gateway.jids`: group JIDs are ``<digits>@g.us``, people
are user JIDs or LIDs (phone numbers arrive as user JIDs). The records answered are the
models of the command bus's contracts (``gateway.bus.contracts.groups``): what an adapter
answers is what the command's reply carries.

Failures are :class:`~.port.NetworkError`. Where the network refuses for a reason the API
names (``not_group_admin``, ``group_not_found``, ``invite_link_revoked``, ...), the kind is
``REFUSED`` and ``code`` is that lowercase code from :mod:`gateway.groups.codes`; throttling
is ``RATE_LIMITED``; what the adapter cannot do at all is ``UNSUPPORTED``. Admin checks of the
gateway's own rule are the session host's (it reads :meth:`GroupOperations.group_info`
first), so an adapter only reports what the network itself refuses.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

# The command bus's contracts name these choices and records; the port takes and answers them
# as they cross the bus.
from gateway.bus.contracts.groups import (
    GroupCreated,
    GroupInfo,
    GroupMember,
    JoinOutcome,
    MemberAddMode,
    MemberOutcome,
    ParticipantAction,
    PendingJoinRequest,
    RequestAction,
)

__all__ = [
    "GroupCreated",
    "GroupInfo",
    "GroupMember",
    "JoinOutcome",
    "MemberAddMode",
    "MemberOutcome",
    "ParticipantAction",
    "PendingJoinRequest",
    "RequestAction",
]


EPHEMERAL_DURATIONS = (0, 86400, 604800, 7776000)
"""The disappearing-message timers the network takes: off, 24 hours, 7 days, 90 days."""


@dataclass(frozen=True)
class GroupOptions:
    """The ``options`` of POST /groups (all off by default)."""

    announcement: bool = False
    locked: bool = False
    join_approval: bool = False
    community: bool = False
    parent_jid: str | None = None


@dataclass(frozen=True)
class GroupSettings:
    """A PATCH /groups/{jid}: only the fields that are not None change. ``topic`` is the one
    description field of the network (the API folds ``description`` into it)."""

    name: str | None = None
    topic: str | None = None
    announce: bool | None = None
    locked: bool | None = None
    join_approval: bool | None = None
    member_add_mode: MemberAddMode | None = None

    def given(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


@dataclass(frozen=True)
class GroupInvite:
    """How to join: an invite ``code`` (from a link), and for the code form also the group and
    the person who sent the invitation."""

    code: str
    group_jid: str | None = None
    inviter_jid: str | None = None


class GroupOperations(Protocol):
    """What a connected device session does with groups; every call needs ``CONNECTED``
    (``NOT_CONNECTED`` otherwise, nothing sent)."""

    async def create_group(self, name: str, participants: list[str], options: GroupOptions) -> GroupCreated:
        """Create a group (a community with ``options.community``) with the device as its
        super admin; ``options.parent_jid`` links it into that community at once."""

    async def joined_groups(self) -> list[GroupInfo]:
        """Every group and community the device is in."""

    async def group_info(self, group_jid: str) -> GroupInfo:
        """The group with its participants; ``REFUSED group_not_found`` when the device is
        not in it or it does not exist."""

    async def change_participants(
        self, group_jid: str, action: ParticipantAction, participants: list[str]
    ) -> list[MemberOutcome]:
        """Add, remove, promote or demote people; one result per person, in the order asked."""

    async def update_group(self, group_jid: str, settings: GroupSettings) -> None:
        """Change the given settings. An adapter that cannot change one of them raises
        ``UNSUPPORTED`` before changing any."""

    async def set_group_picture(self, group_jid: str, jpeg: bytes) -> str:
        """Set the group's picture (JPEG bytes); the network's picture id."""

    async def set_group_ephemeral(self, group_jid: str, seconds: int) -> None:
        """Set the disappearing-message timer to one of :data:`EPHEMERAL_DURATIONS`."""

    async def group_invite_link(self, group_jid: str, *, reset: bool = False) -> str:
        """The invite link; with ``reset`` the old one is revoked and a new one answered."""

    async def join_group(self, invite: GroupInvite) -> JoinOutcome:
        """Join by invite (or ask to, where approval is on)."""

    async def leave_group(self, group_jid: str) -> None:
        """Leave the group."""

    async def link_group(self, community_jid: str, group_jid: str) -> None:
        """Link a group into a community."""

    async def unlink_group(self, community_jid: str, group_jid: str) -> None:
        """Remove a group from a community."""

    async def group_requests(self, group_jid: str) -> list[PendingJoinRequest]:
        """The join requests waiting for an admin."""

    async def answer_group_requests(
        self, group_jid: str, action: RequestAction, participants: list[str]
    ) -> list[MemberOutcome]:
        """Approve or reject join requests; per person ``ok`` or ``not_found``."""
