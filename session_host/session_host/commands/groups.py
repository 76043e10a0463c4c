"""Commands on groups and communities, served by the device's running session.

The gateway's admin rule is applied here, once for both adapters: member changes, settings,
the picture, the disappearing timer, invite reset, join requests and community links need
the device to be an admin of the group (of the community, for links). It is checked against
the participant list the network answers (:meth:`GroupOperations.group_info`) before the
network is asked to change anything, so a non-admin device gets ``not_group_admin`` whichever
adapter runs it. What the network itself refuses comes back as its own refusal code.

Arguments were checked by the API; a command that arrives malformed anyway is answered
``invalid`` without touching the network.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from typing import Any

from gateway import jids
from gateway.bus import Command, CommandName, Reply
from gateway.failures.kinds import ErrorKind
from gateway.groups.codes import OperationCode
from session_host.commands.context import Host, Later, failed, ok, refuse_unless_connected
from session_host.commands.registry import OnRunning, handles
from session_host.network.group_types import (
    GroupInfo,
    GroupInvite,
    GroupOptions,
    GroupSettings,
    MemberAddMode,
    ParticipantAction,
    RequestAction,
)
from session_host.network.port import DeviceSession, NetworkError
from session_host.owned import OwnedDevice, session_snapshot

_OPTIONS = frozenset(GroupOptions.__dataclass_fields__)
_SETTINGS = frozenset(GroupSettings.__dataclass_fields__)


class _Malformed(Exception):
    """A command argument the API should never have sent."""


Operation = Callable[[DeviceSession, dict[str, Any]], Awaitable[dict[str, Any]]]


def _served(operation: Operation, *, admin_of: str | None = None) -> OnRunning:
    """A handler running ``operation`` on a connected session with well-formed arguments and,
    with ``admin_of``, the device an admin of the group named by that argument."""

    async def handler(_host: Host, command: Command, owned: OwnedDevice) -> Reply:
        if refused := refuse_unless_connected(command, owned):
            return refused
        session = owned.session
        try:
            if admin_of is not None:
                await _as_admin(session, _group_jid(command.args, admin_of))
            result = await operation(session, command.args)
        except _Malformed as error:
            return failed(command, ErrorKind.INVALID, str(error), session_snapshot(session))
        return ok(command, session_snapshot(session), result)

    handler.__doc__ = operation.__doc__
    return handler


def _group_command(name: CommandName, *, admin_of: str | None = None) -> Callable[[Operation], Operation]:
    """Register ``operation`` as the handler of ``name`` (see :func:`_served`)."""

    def register(operation: Operation) -> Operation:
        handles(name)(_served(operation, admin_of=admin_of))
        return operation

    return register


async def _as_admin(session: DeviceSession, group_jid: str) -> GroupInfo:
    """The group as the network shows it, when the device is one of its admins; else the
    refusal ``not_group_admin`` (the executor answers it with the device's state)."""
    info = await session.groups.group_info(group_jid)
    if session.jid is None or not info.is_admin(session.jid):
        raise NetworkError.refused(
            OperationCode.NOT_GROUP_ADMIN, f"the device is not an admin of {group_jid}"
        )
    return info


# --- arguments ------------------------------------------------------------------------------


def _group_jid(args: dict[str, Any], key: str = "group_jid") -> str:
    value = args.get(key)
    if not jids.is_group_jid(value):
        raise _Malformed(f"{key} must be a group JID")
    return str(value)


def _people(args: dict[str, Any]) -> list[str]:
    value = args.get("participants")
    if not isinstance(value, list) or not all(jids.parse_participant(p) is not None for p in value):
        raise _Malformed("participants must be a list of user JIDs or LIDs")
    return [str(p) for p in value]


def _text(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value:
        raise _Malformed(f"{key} is required")
    return value


def _choice(enum: type[Any], value: Any, key: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        raise _Malformed(f"{key} must be one of {[m.value for m in enum]}") from None


def _fields(args: dict[str, Any], key: str, known: frozenset[str]) -> dict[str, Any]:
    value = args.get(key) or {}
    if not isinstance(value, dict) or not set(value) <= known:
        raise _Malformed(f"{key} must be an object of {sorted(known)}")
    return value


# --- reading ----------------------------------------------------------------------------------


@_group_command(CommandName.LIST_GROUPS)
async def list_groups(session: DeviceSession, _args: dict[str, Any]) -> dict[str, Any]:
    """Every group and community the device is in."""
    return {"groups": [group.to_json() for group in await session.groups.joined_groups()]}


@_group_command(CommandName.GROUP_INFO)
async def group_info(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """One group with its participants."""
    return {"group": (await session.groups.group_info(_group_jid(args))).to_json()}


# --- creating and administering ---------------------------------------------------------------


@_group_command(CommandName.CREATE_GROUP)
async def create_group(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """A new group or community with the device as its super admin (a link into a community
    is the network's to refuse: the device must be an admin there)."""
    options = GroupOptions(**_fields(args, "options", _OPTIONS))
    created = await session.groups.create_group(_text(args, "name"), _people(args), options)
    return {"group": created.group.to_json(), "participants": [p.to_json() for p in created.participants]}


@_group_command(CommandName.GROUP_PARTICIPANTS, admin_of="group_jid")
async def change_participants(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """Add, remove, promote or demote people, each with its own status."""
    action = _choice(ParticipantAction, args.get("action"), "action")
    results = await session.groups.change_participants(_group_jid(args), action, _people(args))
    return {"participants": [r.to_json() for r in results]}


@_group_command(CommandName.UPDATE_GROUP, admin_of="group_jid")
async def update_group(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """Change settings; answers the group as the network shows it afterwards."""
    given = _fields(args, "settings", _SETTINGS)
    if "member_add_mode" in given:
        given["member_add_mode"] = _choice(MemberAddMode, given["member_add_mode"], "member_add_mode")
    settings = GroupSettings(**given)
    if not settings.given():
        raise _Malformed("settings must change something")
    group_jid = _group_jid(args)
    await session.groups.update_group(group_jid, settings)
    return {"group": (await session.groups.group_info(group_jid)).to_json()}


@_group_command(CommandName.GROUP_PICTURE, admin_of="group_jid")
async def set_picture(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """Set the group's picture from base64 JPEG bytes."""
    try:
        jpeg = base64.b64decode(_text(args, "image_base64"), validate=True)
    except binascii.Error:
        raise _Malformed("image_base64 must be base64") from None
    return {"picture_id": await session.groups.set_group_picture(_group_jid(args), jpeg)}


@_group_command(CommandName.GROUP_EPHEMERAL, admin_of="group_jid")
async def set_ephemeral(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """Set the disappearing-message timer (the network refuses other values than its four)."""
    seconds = args.get("duration_seconds")
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        raise _Malformed("duration_seconds must be an integer")
    await session.groups.set_group_ephemeral(_group_jid(args), seconds)
    return {"duration_seconds": seconds}


# --- invites and joining ----------------------------------------------------------------------


async def _read_invite(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    return {"invite_link": await session.groups.group_invite_link(_group_jid(args))}


async def _reset_invite(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    return {"invite_link": await session.groups.group_invite_link(_group_jid(args), reset=True)}


_READ_INVITE = _served(_read_invite)
_RESET_INVITE = _served(_reset_invite, admin_of="group_jid")


@handles(CommandName.GROUP_INVITE)
async def invite_link(host: Host, command: Command, owned: OwnedDevice) -> Reply | Later:
    """The invite link; resetting it is an admin's act (reading it is the network's to allow)."""
    serve = _RESET_INVITE if command.args.get("reset") is True else _READ_INVITE
    return await serve(host, command, owned)


@_group_command(CommandName.JOIN_GROUP)
async def join_group(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """Join by invite code (with the group and inviter for the code form)."""
    group_jid = _group_jid(args) if args.get("group_jid") is not None else None
    inviter = args.get("inviter_jid")
    if inviter is not None and jids.parse_participant(inviter) is None:
        raise _Malformed("inviter_jid must be a user JID or LID")
    outcome = await session.groups.join_group(GroupInvite(_text(args, "code"), group_jid, inviter))
    return {"group_jid": outcome.group_jid, "pending_approval": outcome.pending_approval}


@_group_command(CommandName.LEAVE_GROUP)
async def leave_group(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """Leave a group (anyone may)."""
    await session.groups.leave_group(_group_jid(args))
    return {}


# --- communities ----------------------------------------------------------------------------


@_group_command(CommandName.LINK_GROUP)
async def link_group(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """Link a group into a community the device administers; a group belongs to one
    community at a time (checked here from the network's records, so both adapters say so)."""
    community_jid, group_jid = _group_jid(args, "community_jid"), _group_jid(args)
    await _community(session, community_jid)
    child = await session.groups.group_info(group_jid)
    if child.parent_jid is not None:
        raise NetworkError.refused(
            OperationCode.ALREADY_LINKED, f"{group_jid} is linked to {child.parent_jid}"
        )
    await session.groups.link_group(community_jid, group_jid)
    return {}


@_group_command(CommandName.UNLINK_GROUP)
async def unlink_group(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """Remove a group from a community the device administers (``not_linked`` if it is not
    one of its groups, when the device can read the group)."""
    community_jid, group_jid = _group_jid(args, "community_jid"), _group_jid(args)
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
    return {}


async def _community(session: DeviceSession, community_jid: str) -> None:
    """The device administers ``community_jid`` and it is a community: one read for both."""
    if not (await _as_admin(session, community_jid)).is_community:
        raise NetworkError.refused(OperationCode.NOT_A_COMMUNITY, f"{community_jid} is not a community")


# --- join requests ----------------------------------------------------------------------------


@_group_command(CommandName.GROUP_REQUESTS, admin_of="group_jid")
async def group_requests(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """The join requests waiting for an admin."""
    requests = await session.groups.group_requests(_group_jid(args))
    return {"requests": [{"jid": r.jid, "requested_at": r.requested_at} for r in requests]}


@_group_command(CommandName.ANSWER_GROUP_REQUESTS, admin_of="group_jid")
async def answer_group_requests(session: DeviceSession, args: dict[str, Any]) -> dict[str, Any]:
    """Approve or reject join requests, each with its own status."""
    action = _choice(RequestAction, args.get("action"), "action")
    results = await session.groups.answer_group_requests(_group_jid(args), action, _people(args))
    return {"participants": [r.to_json() for r in results]}
