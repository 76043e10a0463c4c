"""What the gateway's devices do with groups on the simulated network.

A connected device acts as its account, keyed by its connection, under the very rules and
with the very events of the simulator's phones (:class:`~.network_groups.NetworkGroups`):
the rules are :class:`~.groups.Groups`', the members' devices hear of each change through
:meth:`~.world.World.group_changed`, and the state is saved after it. The answers are the
port's records (:mod:`.group_port`); what the network refuses is
``NetworkError.refused(code)`` with the model's lowercase code, and a connection that is
gone is ``NOT_CONNECTED``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict

from ..group_types import (
    GroupCreated,
    GroupInfo,
    GroupOptions,
    GroupSettings,
    JoinOutcome,
    JoinRequest,
    MemberResult,
    ParticipantAction,
    RequestAction,
)
from ..port import NetworkError
from . import group_port
from .group_records import Group, GroupError
from .network_groups import NetworkGroups


class DeviceGroups(NetworkGroups):
    """The device side of groups; :class:`~.network.SimulatedNetwork` has both sides."""

    @contextmanager
    def _as_device(self, conn_id: str) -> Iterator[str]:
        """Hold the network's lock and name the connected device's account (the actor)."""
        with self._lock:
            _conn, account = self._live(conn_id)
            try:
                yield account.jid
            except GroupError as error:
                raise NetworkError.refused(error.code, str(error)) from error

    def _info(self, group: Group) -> GroupInfo:
        return group_port.group_info(group, self._lid_of)

    def _lid_of(self, jid: str) -> str | None:
        try:
            account = self._world.account_of_jid(jid)
        except NetworkError:  # not a user JID: the network knows no account behind it
            return None
        return account.lid if account is not None else None

    # --- creating and reading -----------------------------------------------------------

    def device_create_group(
        self, conn_id: str, name: str, participants: list[str], options: GroupOptions
    ) -> GroupCreated:
        with self._as_device(conn_id) as actor:
            group, change = self._world.groups.create(actor, name, participants, **asdict(options))
            self._changed(change)
            return GroupCreated(self._info(group), tuple(map(group_port.member_result, change.results)))

    def device_groups(self, conn_id: str) -> list[GroupInfo]:
        with self._as_device(conn_id) as actor:
            return [self._info(group) for group in self._world.groups.groups_of(actor)]

    def device_group(self, conn_id: str, group_jid: str) -> GroupInfo:
        with self._as_device(conn_id) as actor:
            return self._info(self._world.groups.get_for(group_jid, actor))

    # --- administering --------------------------------------------------------------------

    def device_change_participants(
        self, conn_id: str, group_jid: str, action: ParticipantAction, participants: list[str]
    ) -> list[MemberResult]:
        with self._as_device(conn_id) as actor:
            groups = self._world.groups
            change = self._changed(groups.change_participants(group_jid, actor, str(action), participants))
            return [group_port.member_result(result) for result in change.results]

    def device_update_group(self, conn_id: str, group_jid: str, settings: GroupSettings) -> None:
        with self._as_device(conn_id) as actor:
            self._changed(self._world.groups.update(group_jid, actor, **settings.given()))

    def device_set_picture(self, conn_id: str, group_jid: str, jpeg: bytes) -> str:
        with self._as_device(conn_id) as actor:
            change = self._changed(self._world.groups.set_picture(group_jid, actor, jpeg))
            return str(change.fields["picture_id"])

    def device_set_ephemeral(self, conn_id: str, group_jid: str, seconds: int) -> None:
        with self._as_device(conn_id) as actor:
            self._changed(self._world.groups.set_ephemeral(group_jid, actor, seconds))

    def device_invite_link(self, conn_id: str, group_jid: str, *, reset: bool) -> str:
        """The link (admins only); ``reset`` revokes the old one first (told as ``group.info``)."""
        with self._as_device(conn_id) as actor:
            if not reset:
                return self._world.groups.invite_link(group_jid, actor)
            change = self._changed(self._world.groups.reset_invite(group_jid, actor))
            return str(change.fields["invite_link"])

    # --- joining, requests, leaving ---------------------------------------------------------

    def device_join_group(self, conn_id: str, code: str, group_jid: str | None) -> JoinOutcome:
        """Join by code (``group_jid``: the code form, which must name the code's group).
        Choice: the group JID is answered when approval is pending too (the network knows it)."""
        with self._as_device(conn_id) as actor:
            change = self._changed(self._world.groups.join(actor, code, group_jid=group_jid))
            return JoinOutcome(group_jid=change.group_jid, pending_approval=bool(change.requested))

    def device_group_requests(self, conn_id: str, group_jid: str) -> list[JoinRequest]:
        with self._as_device(conn_id) as actor:
            return [group_port.join_request(r) for r in self._world.groups.requests(group_jid, actor)]

    def device_answer_requests(
        self, conn_id: str, group_jid: str, action: RequestAction, participants: list[str]
    ) -> list[MemberResult]:
        with self._as_device(conn_id) as actor:
            groups = self._world.groups
            change = self._changed(groups.answer_requests(group_jid, actor, str(action), participants))
            return [group_port.member_result(result) for result in change.results]

    def device_leave_group(self, conn_id: str, group_jid: str) -> None:
        with self._as_device(conn_id) as actor:
            self._changed(self._world.groups.leave(group_jid, actor))

    # --- communities ------------------------------------------------------------------------

    def device_link_group(self, conn_id: str, community_jid: str, group_jid: str) -> None:
        with self._as_device(conn_id) as actor:
            self._changed(self._world.groups.link(community_jid, group_jid, actor))

    def device_unlink_group(self, conn_id: str, community_jid: str, group_jid: str) -> None:
        with self._as_device(conn_id) as actor:
            self._changed(self._world.groups.unlink(community_jid, group_jid, actor))
