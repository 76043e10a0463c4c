"""Commands on groups and communities, served by the device's running session.

The gateway's admin rule is applied here, once for both adapters: member changes, settings,
the picture, the disappearing timer, invite reset, join requests and community links need
the device to be an admin of the group (of the community, for links). It is checked against
the participant list the network answers (:meth:`GroupOperations.group_info`) before the
network is asked to change anything, so a non-admin device gets ``not_group_admin`` whichever
adapter runs it. What the network itself refuses comes back as its own refusal code.

Arguments are the contracts' (``gateway.bus.contracts.groups``), parsed before a handler
runs: a command that arrives malformed is refused there, before the network is touched.
"""

from __future__ import annotations

import base64
from typing import Any

from gateway.bus import Command, Reply, contracts
from gateway.bus.contracts import Done, NoArgs
from gateway.bus.contracts import groups as bus
from gateway.groups.codes import OperationCode
from session_host.commands.registry import Host, Later, handles, on_session, served
from session_host.device_tenure import OwnedDevice
from session_host.network.group_types import (
    GroupInfo,
    GroupInvite,
    GroupOptions,
    GroupSettings,
)
from session_host.network.port import DeviceSession, NetworkError


async def _as_group_admin(session: DeviceSession, args: Any) -> GroupInfo:
    """The admin rule of a command on the group its ``group_jid`` names (:func:`_as_admin`)."""
    return await _as_admin(session, args.group_jid)


async def _as_admin(session: DeviceSession, group_jid: str) -> GroupInfo:
    """The group as the network shows it, when the device is one of its admins; else the
    refusal ``not_group_admin`` (the executor answers it with the device's state)."""
    info = await session.groups.group_info(group_jid)
    if session.jid is None or not info.is_admin(session.jid):
        raise NetworkError.refused(
            OperationCode.NOT_GROUP_ADMIN, f"the device is not an admin of {group_jid}"
        )
    return info


# --- reading ----------------------------------------------------------------------------------


@on_session(contracts.LIST_GROUPS)
async def list_groups(session: DeviceSession, _args: NoArgs) -> bus.GroupList:
    """Every group and community the device is in."""
    return bus.GroupList(groups=await session.groups.joined_groups())


@on_session(contracts.GROUP_INFO)
async def group_info(session: DeviceSession, args: bus.GroupRef) -> bus.OneGroup:
    """One group with its participants."""
    return bus.OneGroup(group=await session.groups.group_info(args.group_jid))


# --- creating and administering ---------------------------------------------------------------


@on_session(contracts.CREATE_GROUP)
async def create_group(session: DeviceSession, args: bus.CreateGroupArgs) -> bus.GroupCreated:
    """A new group or community with the device as its super admin (a link into a community
    is the network's to refuse: the device must be an admin there)."""
    options = GroupOptions(**args.options.model_dump())
    return await session.groups.create_group(args.name, args.participants, options)


@on_session(contracts.GROUP_PARTICIPANTS, before=_as_group_admin)
async def change_participants(session: DeviceSession, args: bus.ParticipantsArgs) -> bus.MemberOutcomes:
    """Add, remove, promote or demote people, each with its own status."""
    results = await session.groups.change_participants(args.group_jid, args.action, args.participants)
    return bus.MemberOutcomes(participants=results)


@on_session(contracts.UPDATE_GROUP, before=_as_group_admin)
async def update_group(session: DeviceSession, args: bus.UpdateGroupArgs) -> bus.OneGroup:
    """Change settings; answers the group as the network shows it afterwards."""
    await session.groups.update_group(args.group_jid, GroupSettings(**args.settings.model_dump()))
    return bus.OneGroup(group=await session.groups.group_info(args.group_jid))


@on_session(contracts.GROUP_PICTURE, before=_as_group_admin)
async def set_picture(session: DeviceSession, args: bus.PictureArgs) -> bus.PictureSet:
    """Set the group's picture from base64 JPEG bytes."""
    jpeg = base64.b64decode(args.image_base64)
    # str(): neonize hands back what whatsmeow answers, which is not always typed as the port says
    return bus.PictureSet(picture_id=str(await session.groups.set_group_picture(args.group_jid, jpeg)))


@on_session(contracts.GROUP_EPHEMERAL, before=_as_group_admin)
async def set_ephemeral(session: DeviceSession, args: bus.EphemeralArgs) -> bus.EphemeralSet:
    """Set the disappearing-message timer (the network refuses other values than its four)."""
    await session.groups.set_group_ephemeral(args.group_jid, args.duration_seconds)
    return bus.EphemeralSet(duration_seconds=args.duration_seconds)


# --- invites and joining ----------------------------------------------------------------------


async def _read_invite(session: DeviceSession, args: bus.InviteArgs) -> bus.InviteLink:
    return bus.InviteLink(invite_link=await session.groups.group_invite_link(args.group_jid))


async def _reset_invite(session: DeviceSession, args: bus.InviteArgs) -> bus.InviteLink:
    return bus.InviteLink(invite_link=await session.groups.group_invite_link(args.group_jid, reset=True))


_READ_INVITE = served(_read_invite)
_RESET_INVITE = served(_reset_invite, before=_as_group_admin)


@handles(contracts.GROUP_INVITE)
async def invite_link(host: Host, command: Command[bus.InviteArgs], owned: OwnedDevice) -> Reply[Any] | Later:
    """The invite link; resetting it is an admin's act (reading it is the network's to allow)."""
    serve = _RESET_INVITE if command.args.reset else _READ_INVITE
    return await serve(host, command, owned)


@on_session(contracts.JOIN_GROUP)
async def join_group(session: DeviceSession, args: bus.JoinArgs) -> bus.JoinOutcome:
    """Join by invite code (with the group and inviter for the code form)."""
    return await session.groups.join_group(GroupInvite(args.code, args.group_jid, args.inviter_jid))


@on_session(contracts.LEAVE_GROUP)
async def leave_group(session: DeviceSession, args: bus.GroupRef) -> Done:
    """Leave a group (anyone may)."""
    await session.groups.leave_group(args.group_jid)
    return Done()


# --- communities ----------------------------------------------------------------------------


@on_session(contracts.LINK_GROUP)
async def link_group(session: DeviceSession, args: bus.CommunityLinkArgs) -> Done:
    """Link a group into a community the device administers; a group belongs to one
    community at a time (checked here from the network's records, so both adapters say so)."""
    community_jid, group_jid = args.community_jid, args.group_jid
    await _community(session, community_jid)
    child = await session.groups.group_info(group_jid)
    if child.parent_jid is not None:
        raise NetworkError.refused(
            OperationCode.ALREADY_LINKED, f"{group_jid} is linked to {child.parent_jid}"
        )
    await session.groups.link_group(community_jid, group_jid)
    return Done()


@on_session(contracts.UNLINK_GROUP)
async def unlink_group(session: DeviceSession, args: bus.CommunityLinkArgs) -> Done:
    """Remove a group from a community the device administers (``not_linked`` if it is not
    one of its groups, when the device can read the group)."""
    community_jid, group_jid = args.community_jid, args.group_jid
    await _community(session, community_jid)
    try:
        child = await session.groups.group_info(group_jid)
    except NetworkError as error:
        if error.code != OperationCode.GROUP_NOT_FOUND:  # a community admin need not be in the group
            raise
    else:
        if child.parent_jid != community_jid:
            raise NetworkError.refused(
                OperationCode.NOT_LINKED, f"{group_jid} is not linked to {community_jid}"
            )
    await session.groups.unlink_group(community_jid, group_jid)
    return Done()


async def _community(session: DeviceSession, community_jid: str) -> None:
    """The device administers ``community_jid`` and it is a community: one read for both."""
    if not (await _as_admin(session, community_jid)).is_community:
        raise NetworkError.refused(OperationCode.NOT_A_COMMUNITY, f"{community_jid} is not a community")


# --- join requests ----------------------------------------------------------------------------


@on_session(contracts.GROUP_REQUESTS, before=_as_group_admin)
async def group_requests(session: DeviceSession, args: bus.GroupRef) -> bus.JoinRequestList:
    """The join requests waiting for an admin."""
    return bus.JoinRequestList(requests=await session.groups.group_requests(args.group_jid))


@on_session(contracts.ANSWER_GROUP_REQUESTS, before=_as_group_admin)
async def answer_group_requests(session: DeviceSession, args: bus.PeopleArgs) -> bus.MemberOutcomes:
    """Approve or reject join requests, each with its own status."""
    results = await session.groups.answer_group_requests(args.group_jid, args.action, args.participants)
    return bus.MemberOutcomes(participants=results)
