"""The port's :class:`~..group_types.GroupOperations` of a simulated device session (its ``groups``).

Every operation goes the same way: the session must be connected (``NOT_CONNECTED``,
nothing sent, no fault used up), an injected fault named after the bus command that runs
it may fail it (``POST /_simulator/faults {operation: "join_group", error:
"rate_limited"}``), then the device's account acts on the network
(:class:`~.network_device_groups.DeviceGroups`), whose refusals arrive as
``NetworkError.refused(code)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from gateway.bus.messages import CommandName

from ..group_types import (
    GroupCreated,
    GroupInfo,
    GroupInvite,
    GroupOptions,
    GroupSettings,
    JoinOutcome,
    JoinRequest,
    MemberResult,
    ParticipantAction,
    RequestAction,
)
from .link import DeviceLink
from .network import SimulatedNetwork

P = ParamSpec("P")
T = TypeVar("T")


class SimulatedGroups:
    """A simulated session's ``groups``: its account's group operations on the network."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: SimulatedNetwork = link.network

    async def _on_network(
        self, operation: CommandName, act: Callable[Concatenate[str, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``act(connection, ...)`` once connected and past any fault of ``operation``; the
        connection is read again after the fault, as a timeout fault waits meanwhile."""
        self._link.connection()
        await self._link.fault(operation)
        return act(self._link.connection(), *args, **kwargs)

    async def create_group(self, name: str, participants: list[str], options: GroupOptions) -> GroupCreated:
        network = self._network
        return await self._on_network(
            CommandName.CREATE_GROUP, network.device_create_group, name, list(participants), options
        )

    async def joined_groups(self) -> list[GroupInfo]:
        return await self._on_network(CommandName.LIST_GROUPS, self._network.device_groups)

    async def group_info(self, group_jid: str) -> GroupInfo:
        return await self._on_network(CommandName.GROUP_INFO, self._network.device_group, group_jid)

    async def change_participants(
        self, group_jid: str, action: ParticipantAction, participants: list[str]
    ) -> list[MemberResult]:
        network = self._network
        return await self._on_network(
            CommandName.GROUP_PARTICIPANTS,
            network.device_change_participants,
            group_jid,
            action,
            participants,
        )

    async def update_group(self, group_jid: str, settings: GroupSettings) -> None:
        await self._on_network(
            CommandName.UPDATE_GROUP, self._network.device_update_group, group_jid, settings
        )

    async def set_group_picture(self, group_jid: str, jpeg: bytes) -> str:
        return await self._on_network(
            CommandName.GROUP_PICTURE, self._network.device_set_picture, group_jid, jpeg
        )

    async def set_group_ephemeral(self, group_jid: str, seconds: int) -> None:
        network = self._network
        await self._on_network(CommandName.GROUP_EPHEMERAL, network.device_set_ephemeral, group_jid, seconds)

    async def group_invite_link(self, group_jid: str, *, reset: bool = False) -> str:
        network = self._network
        return await self._on_network(
            CommandName.GROUP_INVITE, network.device_invite_link, group_jid, reset=reset
        )

    async def join_group(self, invite: GroupInvite) -> JoinOutcome:
        """Join by the invite's code; the code form's ``group_jid`` must be the code's group
        (``group_not_found`` otherwise). Choice: ``inviter_jid`` is not checked, the code
        alone admits, as the network's invite codes do."""
        network = self._network
        return await self._on_network(
            CommandName.JOIN_GROUP, network.device_join_group, invite.code, invite.group_jid
        )

    async def leave_group(self, group_jid: str) -> None:
        await self._on_network(CommandName.LEAVE_GROUP, self._network.device_leave_group, group_jid)

    async def link_group(self, community_jid: str, group_jid: str) -> None:
        network = self._network
        await self._on_network(CommandName.LINK_GROUP, network.device_link_group, community_jid, group_jid)

    async def unlink_group(self, community_jid: str, group_jid: str) -> None:
        network = self._network
        await self._on_network(
            CommandName.UNLINK_GROUP, network.device_unlink_group, community_jid, group_jid
        )

    async def group_requests(self, group_jid: str) -> list[JoinRequest]:
        return await self._on_network(
            CommandName.GROUP_REQUESTS, self._network.device_group_requests, group_jid
        )

    async def answer_group_requests(
        self, group_jid: str, action: RequestAction, participants: list[str]
    ) -> list[MemberResult]:
        network = self._network
        return await self._on_network(
            CommandName.ANSWER_GROUP_REQUESTS, network.device_answer_requests, group_jid, action, participants
        )
