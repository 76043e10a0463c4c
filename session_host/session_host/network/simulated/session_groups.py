"""The port's :class:`~..group_types.GroupOperations` of a simulated device session (its ``groups``).

As every operation (:mod:`.link`): the session must be connected (``NOT_CONNECTED``, nothing
sent, no fault used up), a fault injected under the name of the bus command that runs it may
fail it (``POST /_simulator/faults {operation: "join_group", error: "rate_limited"}``), then
the device's account acts on the network (:meth:`~.core.NetworkCore.device`) under the very
rules the simulator's phones meet (:class:`~.groups.Groups`, whose refusals arrive as
``NetworkError.refused(code)``); the members' devices hear of each change
(:meth:`~.world.World.group_changed`). The answers are the port's records
(made at the end of this module from the rules model's own), so the session host cannot tell
the adapters apart.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from typing import Any

from gateway.bus.contracts import CommandName

from ..group_types import (
    GroupCreated,
    GroupInfo,
    GroupInvite,
    GroupMember,
    GroupOptions,
    GroupSettings,
    JoinOutcome,
    MemberAddMode,
    MemberOutcome,
    ParticipantAction,
    PendingJoinRequest,
    RequestAction,
)
from .core import DeviceLink, DeviceTurn, NetworkCore
from .group_records import Group, GroupChange, PersonResult, Role


class SimulatedGroups:
    """A simulated session's ``groups``: its account's group operations on the network."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: NetworkCore = link.network

    @asynccontextmanager
    async def _turn(self, operation: CommandName) -> AsyncIterator[DeviceTurn]:
        """The account's turn on the network, once connected and past any fault of
        ``operation`` (the connection is read again after it: a timeout fault waits)."""
        self._link.connection()
        await self._link.fault(operation)
        with self._network.device(self._link.connection()) as turn:
            yield turn

    # --- creating and reading -----------------------------------------------------------

    async def create_group(self, name: str, participants: list[str], options: GroupOptions) -> GroupCreated:
        async with self._turn(CommandName.CREATE_GROUP) as turn:
            actor = turn.account.jid
            group, change = turn.world.groups.create(actor, name, list(participants), **asdict(options))
            return GroupCreated(group=_info(turn, group), participants=tuple(_answered(turn, change)))

    async def joined_groups(self) -> list[GroupInfo]:
        async with self._turn(CommandName.LIST_GROUPS) as turn:
            return [_info(turn, group) for group in turn.world.groups.groups_of(turn.account.jid)]

    async def group_info(self, group_jid: str) -> GroupInfo:
        async with self._turn(CommandName.GROUP_INFO) as turn:
            return _info(turn, turn.world.groups.get_for(group_jid, turn.account.jid))

    # --- administering ------------------------------------------------------------------

    async def change_participants(
        self, group_jid: str, action: ParticipantAction, participants: list[str]
    ) -> list[MemberOutcome]:
        async with self._turn(CommandName.GROUP_PARTICIPANTS) as turn:
            groups = turn.world.groups
            return _answered(
                turn, groups.change_participants(group_jid, turn.account.jid, str(action), participants)
            )

    async def update_group(self, group_jid: str, settings: GroupSettings) -> None:
        async with self._turn(CommandName.UPDATE_GROUP) as turn:
            turn.changed(turn.world.groups.update(group_jid, turn.account.jid, **settings.given()))

    async def set_group_picture(self, group_jid: str, jpeg: bytes) -> str:
        async with self._turn(CommandName.GROUP_PICTURE) as turn:
            change = turn.world.groups.set_picture(group_jid, turn.account.jid, jpeg)
            turn.changed(change)
            return str(change.fields["picture_id"])

    async def set_group_ephemeral(self, group_jid: str, seconds: int) -> None:
        async with self._turn(CommandName.GROUP_EPHEMERAL) as turn:
            turn.changed(turn.world.groups.set_ephemeral(group_jid, turn.account.jid, seconds))

    async def group_invite_link(self, group_jid: str, *, reset: bool = False) -> str:
        """The link (admins only); ``reset`` revokes the old one first (told as ``group.info``)."""
        async with self._turn(CommandName.GROUP_INVITE) as turn:
            if not reset:
                return turn.world.groups.invite_link(group_jid, turn.account.jid)
            change = turn.world.groups.reset_invite(group_jid, turn.account.jid)
            turn.changed(change)
            return str(change.fields["invite_link"])

    # --- joining, requests, leaving -----------------------------------------------------

    async def join_group(self, invite: GroupInvite) -> JoinOutcome:
        """Join by the invite's code; the code form's ``group_jid`` must be the code's group
        (``group_not_found`` otherwise). Choices: ``inviter_jid`` is not checked, the code
        alone admits, as the network's invite codes do; the group JID is answered when
        approval is pending too (the network knows it)."""
        async with self._turn(CommandName.JOIN_GROUP) as turn:
            change = turn.world.groups.join(turn.account.jid, invite.code, group_jid=invite.group_jid)
            turn.changed(change)
            return JoinOutcome(group_jid=change.group_jid, pending_approval=bool(change.requested))

    async def leave_group(self, group_jid: str) -> None:
        async with self._turn(CommandName.LEAVE_GROUP) as turn:
            turn.changed(turn.world.groups.leave(group_jid, turn.account.jid))

    async def group_requests(self, group_jid: str) -> list[PendingJoinRequest]:
        async with self._turn(CommandName.GROUP_REQUESTS) as turn:
            requests = turn.world.groups.requests(group_jid, turn.account.jid)
            return [_join_request(request) for request in requests]

    async def answer_group_requests(
        self, group_jid: str, action: RequestAction, participants: list[str]
    ) -> list[MemberOutcome]:
        async with self._turn(CommandName.ANSWER_GROUP_REQUESTS) as turn:
            groups = turn.world.groups
            return _answered(
                turn, groups.answer_requests(group_jid, turn.account.jid, str(action), participants)
            )

    # --- communities --------------------------------------------------------------------

    async def link_group(self, community_jid: str, group_jid: str) -> None:
        async with self._turn(CommandName.LINK_GROUP) as turn:
            turn.changed(turn.world.groups.link(community_jid, group_jid, turn.account.jid))

    async def unlink_group(self, community_jid: str, group_jid: str) -> None:
        async with self._turn(CommandName.UNLINK_GROUP) as turn:
            turn.changed(turn.world.groups.unlink(community_jid, group_jid, turn.account.jid))


def _info(turn: DeviceTurn, group: Group) -> GroupInfo:
    """The group as a member's device reads it: participants in the order they came in."""
    return GroupInfo(
        jid=group.jid,
        name=group.name,
        topic=group.topic,
        owner=group.owner,
        created_at=group.created_at,
        is_announce=group.is_announce,
        is_locked=group.is_locked,
        join_approval=group.join_approval,
        member_add_mode=MemberAddMode(group.member_add_mode),
        ephemeral_duration=group.ephemeral_duration,
        is_community=group.is_community,
        parent_jid=group.parent_jid,
        participants=tuple(
            GroupMember(
                jid=jid,
                is_admin=role.is_admin,
                is_super_admin=role is Role.SUPER_ADMIN,
                lid=turn.world.lid_of(jid),
            )
            for jid, role in group.participants.items()
        ),
    )


def _answered(turn: DeviceTurn, change: GroupChange) -> list[MemberOutcome]:
    """Keep the change (its members' devices hear of it); each person's part of it, with the
    admin flags they have now."""
    turn.changed(change)
    return [_outcome(result) for result in change.results]


def _outcome(result: PersonResult) -> MemberOutcome:
    return MemberOutcome(
        jid=result.jid,
        status=result.status,
        is_admin=result.role is not None and result.role.is_admin,
        is_super_admin=result.role is Role.SUPER_ADMIN,
    )


def _join_request(request: dict[str, Any]) -> PendingJoinRequest:
    return PendingJoinRequest(jid=request["jid"], requested_at=request["requested_at"])
