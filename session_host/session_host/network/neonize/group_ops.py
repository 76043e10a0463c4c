"""The group and community operations of a neonize session (its ``groups``: ``GroupOperations``).

Every library call goes through :meth:`.link.DeviceLink.call` (state checked inside the gate,
exceptions mapped by :func:`.link.group_error`). What neonize 0.5.2 cannot do is answered
``UNSUPPORTED`` (:func:`.catalog.unsupported`) before anything reaches the network: its Go
binary exports no call to set a group's join-approval mode or member-add mode, nor to approve
or reject join requests.

Choices, where whatsmeow and the port meet:

- **Join approval on create.** neonize passes only ``GroupParent`` and ``GroupLinkedParent``
  of whatsmeow's create request. A community takes ``DefaultMembershipApprovalMode``; whatsmeow
  sends ``request_required`` whenever it is empty, so a community created through neonize
  always asks for approval: ``options.join_approval`` true creates it, false is
  ``UNSUPPORTED`` (it cannot be honoured). A plain group cannot be created with join approval
  (``UNSUPPORTED``, nothing created). Both fields of ``GroupParent`` are always set: neonize's
  Go side dereferences them unchecked and an unset one would abort the process.
- **Announcement and locked on create** are two calls after the create (neonize's request has
  no field for them), announcement first. If one fails, the group exists all the same: the
  error (the failed call's kind and code) says "created as <jid>" and what was applied, so the
  caller can repeat the setting with PATCH instead of creating a second group.
- **update_group** applies name, topic, announce, locked in that order, one call each. A
  failure part-way raises the failed call's error with a message naming what was already
  applied; nothing is rolled back (the network has no transaction).
- **Disappearing timer**: neonize takes nanoseconds (an ``int``); its ``timedelta`` path is
  mis-scaled to milliseconds. ``setting_ts`` stays None.
- **Joining by link**: whatsmeow answers a JID both when the device joined and when it only
  asked to (approval pending). The group is then read: a device that can read it is a member;
  ``group_not_found`` means the request waits. The code form (an invitation message) has no
  approval step; its expiration is not known to the API and is sent as 0.
"""

from __future__ import annotations

import functools
from typing import Any

from neonize.client import NewClient
from neonize.proto.Neonize_pb2 import JID, GroupLinkedParent, GroupParent
from neonize.utils.enum import ParticipantChange

from gateway import jids
from gateway.groups.codes import OperationCode

from ..group_types import (
    EPHEMERAL_DURATIONS,
    GroupCreated,
    GroupInfo,
    GroupInvite,
    GroupOptions,
    GroupSettings,
    JoinOutcome,
    MemberOutcome,
    ParticipantAction,
    PendingJoinRequest,
    RequestAction,
)
from ..port import NetworkError
from . import group_convert
from .catalog import unsupported
from .jids import jid_str, parse_jid
from .link import DeviceLink, group_error

_NANOSECONDS = 1_000_000_000
_JPEG_MAGIC = b"\xff\xd8\xff"
_CHANGES = {
    ParticipantAction.ADD: ParticipantChange.ADD,
    ParticipantAction.REMOVE: ParticipantChange.REMOVE,
    ParticipantAction.PROMOTE: ParticipantChange.PROMOTE,
    ParticipantAction.DEMOTE: ParticipantChange.DEMOTE,
}
_JOINING = functools.partial(group_error, joining=True)


def group_of(value: str) -> JID:
    """A group JID protobuf; ``invalid_group_jid`` when ``value`` is not ``<digits>@g.us``."""
    if not jids.is_group_jid(value):
        raise NetworkError.refused(OperationCode.INVALID_GROUP_JID, f"not a group JID: {value!r}")
    return parse_jid(value)


def people(values: list[str]) -> list[JID]:
    """Participants as JID protobufs, duplicates dropped; ``invalid_participant`` when one is
    not a phone number, user JID or LID (then nothing is sent)."""
    found: dict[str, JID] = {}
    for value in values:
        address = jids.parse_participant(value)
        if address is None:
            raise NetworkError.refused(
                OperationCode.INVALID_PARTICIPANT, f"not a phone number, user JID or LID: {value!r}"
            )
        found.setdefault(address.jid, parse_jid(address.jid))
    return list(found.values())


def _after(error: NetworkError, message: str) -> NetworkError:
    """The same failure (kind and code), told with what had already happened."""
    return NetworkError(error.kind, f"{message}: {error}", code=error.code)


def _applied(fields: list[str]) -> str:
    return ", ".join(fields) if fields else "nothing"


class NeonizeGroups:
    """A neonize session's ``groups``: every library call through its link's gated call."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link

    # --- creating and reading -----------------------------------------------------------

    async def create_group(self, name: str, participants: list[str], options: GroupOptions) -> GroupCreated:
        parent = self._create_parent(options)
        asked = people(participants)
        linked = (
            GroupLinkedParent(LinkedParentJID=group_of(options.parent_jid)) if options.parent_jid else None
        )
        own = self._link.own_jid()
        others = [person for person in asked if jid_str(person) != own]
        info = await self._link.call(
            "create group",
            lambda client: client.create_group(name, others, linked_parent=linked, group_parent=parent),
            error=group_error,
        )
        results = group_convert.member_results(
            [jid_str(person) or "" for person in others], info.Participants, ParticipantAction.ADD
        )
        if len(others) < len(asked):  # the creator is its group's super admin already
            results.insert(
                [jid_str(p) for p in asked].index(own),
                MemberOutcome(jid=own or "", status="already_member", is_admin=True, is_super_admin=True),
            )
        group = await self._create_settings(group_convert.group_info(info), options)
        return GroupCreated(group=group, participants=tuple(results))

    @staticmethod
    def _create_parent(options: GroupOptions) -> GroupParent | None:
        """The ``GroupParent`` of the create request, or UNSUPPORTED before anything is sent."""
        if options.community and options.parent_jid:
            raise NetworkError.refused(
                OperationCode.INVALID_REQUEST, "a community cannot belong to a community"
            )
        if not options.community:
            if options.join_approval:
                raise unsupported("create_group.join_approval")
            return None
        if not options.join_approval:
            raise unsupported("create_group.community")
        return GroupParent(IsParent=True, DefaultMembershipApprovalMode=group_convert.REQUEST_REQUIRED)

    async def _create_settings(self, group: GroupInfo, options: GroupOptions) -> GroupInfo:
        """Announcement, then locked, on the new group (see the module's docstring)."""
        target = parse_jid(group.jid)
        applied: list[str] = []
        steps = [
            ("announcement", options.announcement, "is_announce", "set_group_announce"),
            ("locked", options.locked, "is_locked", "set_group_locked"),
        ]
        for label, wanted, attribute, method in steps:
            if not wanted:
                continue

            def turn_on(client: NewClient, method: str = method) -> object:
                return getattr(client, method)(target, True)

            try:
                await self._link.call(f"set {label}", turn_on, error=group_error)
            except NetworkError as exc:
                done = f"{label} not set (applied: {_applied(applied)})"
                raise _after(exc, f"create group: the group was created as {group.jid}, {done}") from exc
            applied.append(label)
            turned_on: dict[str, Any] = {attribute: True}  # a bool field of GroupInfo
            group = group.model_copy(update=turned_on)
        return group

    async def joined_groups(self) -> list[GroupInfo]:
        infos = await self._link.call(
            "list groups", lambda client: client.get_joined_groups(), error=group_error
        )
        return [group_convert.group_info(info) for info in infos]

    async def group_info(self, group_jid: str) -> GroupInfo:
        target = group_of(group_jid)
        info = await self._link.call(
            "get group", lambda client: client.get_group_info(target), error=group_error
        )
        return group_convert.group_info(info)

    # --- members ------------------------------------------------------------------------

    async def change_participants(
        self, group_jid: str, action: ParticipantAction, participants: list[str]
    ) -> list[MemberOutcome]:
        target = group_of(group_jid)
        action = ParticipantAction(action)
        asked = people(participants)
        if not asked:
            return []
        change = _CHANGES[action]
        answered = await self._link.call(
            f"{action.value} participants",
            lambda client: client.update_group_participants(target, asked, change),
            error=group_error,
        )
        return group_convert.member_results([jid_str(p) or "" for p in asked], answered, action)

    # --- settings -------------------------------------------------------------------------

    async def update_group(self, group_jid: str, settings: GroupSettings) -> None:
        target = group_of(group_jid)
        given = settings.given()
        for name in ("join_approval", "member_add_mode"):
            if name in given:
                raise unsupported(f"update_group.{name}")
        if not given:
            raise NetworkError.refused(OperationCode.INVALID_REQUEST, "nothing to change")
        steps = [
            ("name", "set group name", lambda client: client.set_group_name(target, settings.name)),
            (
                "topic",
                "set group topic",
                lambda client: client.set_group_topic(target, "", "", settings.topic),
            ),
            (
                "announce",
                "set announcement",
                lambda client: client.set_group_announce(target, settings.announce),
            ),
            ("locked", "set locked", lambda client: client.set_group_locked(target, settings.locked)),
        ]
        applied: list[str] = []
        for name, operation, call in steps:
            if name not in given:
                continue
            try:
                await self._link.call(operation, call, error=group_error)
            except NetworkError as exc:
                message = f"update group {group_jid}: {name} not changed (applied: {_applied(applied)})"
                raise _after(exc, message) from exc
            applied.append(name)

    async def set_group_picture(self, group_jid: str, jpeg: bytes) -> str:
        target = group_of(group_jid)
        if not jpeg.startswith(_JPEG_MAGIC):
            raise NetworkError.refused(OperationCode.INVALID_IMAGE, "a group picture is a JPEG image")
        data = bytes(jpeg)  # bytes, never a str: neonize reads a str as a path or URL
        return await self._link.call(
            "set group picture", lambda client: client.set_group_photo(target, data), error=group_error
        )

    async def set_group_ephemeral(self, group_jid: str, seconds: int) -> None:
        target = group_of(group_jid)
        if isinstance(seconds, bool) or seconds not in EPHEMERAL_DURATIONS:
            raise NetworkError.refused(
                OperationCode.INVALID_DURATION, f"duration_seconds is one of {list(EPHEMERAL_DURATIONS)}"
            )
        nanoseconds = int(seconds) * _NANOSECONDS  # not a timedelta: neonize mis-scales those
        await self._link.call(
            "set disappearing timer",
            lambda client: client.set_disappearing_timer(target, nanoseconds),
            error=group_error,
        )

    # --- invites and joining ------------------------------------------------------------

    async def group_invite_link(self, group_jid: str, *, reset: bool = False) -> str:
        target = group_of(group_jid)
        operation = "reset invite link" if reset else "get invite link"
        return await self._link.call(
            operation, lambda client: client.get_group_invite_link(target, revoke=reset), error=group_error
        )

    async def join_group(self, invite: GroupInvite) -> JoinOutcome:
        if not invite.code:
            raise NetworkError.refused(OperationCode.INVALID_REQUEST, "an invite code is required")
        if invite.group_jid is None and invite.inviter_jid is None:
            return await self._join_with_link(invite.code)
        if invite.group_jid is None or invite.inviter_jid is None:
            raise NetworkError.refused(
                OperationCode.INVALID_REQUEST, "the code form needs group_jid and inviter_jid"
            )
        target = group_of(invite.group_jid)
        (inviter,) = people([invite.inviter_jid])
        await self._link.call(
            "join group",
            lambda client: client.join_group_with_invite(target, inviter, invite.code, 0),
            error=_JOINING,
        )
        return JoinOutcome(group_jid=jid_str(target), pending_approval=False)

    async def _join_with_link(self, code: str) -> JoinOutcome:
        joined = await self._link.call(
            "join group", lambda client: client.join_group_with_link(code), error=_JOINING
        )
        joined_jid = jid_str(joined)
        if joined_jid is None:
            return JoinOutcome(group_jid=None, pending_approval=True)
        try:
            await self._link.call(
                "get group", lambda client: client.get_group_info(joined), error=group_error
            )
        except NetworkError as exc:
            if exc.code == OperationCode.GROUP_NOT_FOUND:  # not a member yet: the request waits for an admin
                return JoinOutcome(group_jid=joined_jid, pending_approval=True)
            message = (
                f"join group: asked to join {joined_jid}, but reading whether approval is pending failed"
            )
            raise _after(exc, message) from exc
        return JoinOutcome(group_jid=joined_jid, pending_approval=False)

    async def leave_group(self, group_jid: str) -> None:
        target = group_of(group_jid)
        await self._link.call("leave group", lambda client: client.leave_group(target), error=group_error)

    # --- communities ----------------------------------------------------------------------

    async def link_group(self, community_jid: str, group_jid: str) -> None:
        parent, child = group_of(community_jid), group_of(group_jid)
        await self._link.call(
            "link group", lambda client: client.link_group(parent, child), error=group_error
        )

    async def unlink_group(self, community_jid: str, group_jid: str) -> None:
        parent, child = group_of(community_jid), group_of(group_jid)
        await self._link.call(
            "unlink group", lambda client: client.unlink_group(parent, child), error=group_error
        )

    # --- join requests --------------------------------------------------------------------

    async def group_requests(self, group_jid: str) -> list[PendingJoinRequest]:
        target = group_of(group_jid)
        requests = await self._link.call(
            "list join requests",
            lambda client: client.get_group_request_participants(target),
            error=group_error,
        )
        return group_convert.join_requests(requests)

    async def answer_group_requests(
        self, group_jid: str, action: RequestAction, participants: list[str]
    ) -> list[MemberOutcome]:
        asked = f"{RequestAction(action).value} {len(participants)} join request(s) of {group_jid}"
        raise unsupported("answer_group_requests", asked)
