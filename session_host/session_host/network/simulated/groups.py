"""The simulated network's groups and communities, under the network's own rules.

These rules bind every account alike, the gateway's devices and the simulator's other phones:

- the creator is the group's super admin; only admins change members, except that any
  member may add people when ``member_add_mode`` is ``all``;
- a super admin cannot be removed or demoted, and nobody removes or demotes itself
  (per-person ``not_allowed``: one leaves instead);
- only admins change the settings (announce, locked, join approval, member-add mode) and
  the invite link; a locked group lets only admins edit its info (name, topic, picture,
  disappearing timer), an unlocked one lets every member;
- only members send to a group, and an announce group takes messages from admins only
  (:meth:`Groups.may_send`, :meth:`Groups.audience`);
- joining by link puts the joiner in the pending list when join approval is on, until an
  admin approves or rejects; turning join approval off lets everyone waiting in;
- resetting the invite link revokes the old code (``invite_link_revoked``); an unknown code
  is ``group_not_found``;
- a community holds linked child groups; a group is linked to one community at a time, and
  linking needs an admin of both.

Choices where the specification is silent are noted where they are made. Pure code, no
locks and no I/O: the network holds the lock, emits the events and saves the state.
"""

from __future__ import annotations

from typing import Any

from gateway import jids
from gateway.groups.codes import OperationCode

from ..group_types import EPHEMERAL_DURATIONS, MemberAddMode
from .group_access import GroupAccess
from .group_records import (
    NAME_MAX,
    TOPIC_MAX,
    Group,
    GroupChange,
    GroupError,
    PersonResult,
    Role,
    parse_people,
)

_ATTRIBUTES = {
    "name": "name",
    "topic": "topic",
    "announce": "is_announce",
    "locked": "is_locked",
    "join_approval": "join_approval",
    "member_add_mode": "member_add_mode",
}
"""PATCH fields and the record's attribute each sets."""
MEMBER_ADD_MODES = tuple(mode.value for mode in MemberAddMode)
_ADMIN_ONLY = frozenset({"announce", "locked", "join_approval", "member_add_mode"})
"""Settings only admins change, locked or not; the rest is group info (locked: admins only)."""
JPEG_MAGIC = b"\xff\xd8\xff"


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not 1 <= len(name) <= NAME_MAX:
        raise GroupError(OperationCode.INVALID_REQUEST, f"a group name has 1 to {NAME_MAX} characters")
    return name


class Groups(GroupAccess):
    """Every group and community of the network: :class:`~.group_access.GroupAccess` (reading,
    invites, joining, requests, leaving) plus creating and administering them."""

    # --- creating ---------------------------------------------------------------------

    def create(
        self,
        creator: str,
        name: str,
        participants: list[str],
        *,
        announcement: bool = False,
        locked: bool = False,
        join_approval: bool = False,
        community: bool = False,
        parent_jid: str | None = None,
    ) -> tuple[Group, GroupChange]:
        """``creator`` makes a group (or a community) and is its super admin.

        People not on the network are left out (per-person ``not_found``); the creator
        among the participants is ``already_member``. With ``parent_jid`` the group is
        linked to that community at once, which needs the creator to be one of its admins.
        Choice: a community gets no default announcement sub-group here.
        """
        _check_name(name)
        people = parse_people(participants)
        parent: Group | None = None
        if parent_jid is not None:
            if community:
                raise GroupError(OperationCode.INVALID_REQUEST, "a community cannot belong to a community")
            parent = self.get_for(parent_jid, creator)
            if not parent.is_community:
                raise GroupError(OperationCode.NOT_A_COMMUNITY, f"{parent_jid} is not a community")
            if not parent.is_admin(creator):
                raise GroupError(OperationCode.NOT_GROUP_ADMIN, f"{creator} is not an admin of {parent_jid}")
        jid = f"{self._ids('group')}@{jids.GROUP_SERVER}"
        while jid in self._groups:
            jid = f"{self._ids('group')}@{jids.GROUP_SERVER}"
        group = Group(
            jid=jid,
            name=name,
            owner=creator,
            created_at=self._clock(),
            invite_code=self._ids("invite"),
            is_announce=announcement,
            is_locked=locked,
            join_approval=join_approval,
            is_community=community,
            participants={creator: Role.SUPER_ADMIN},
        )
        change = self._change("create", group, creator)
        change.join.append(creator)
        for person in people:
            account = self._resolve(person)
            if account is None:
                change.results.append(PersonResult(person, "not_found"))
            elif account in group.participants:
                change.results.append(PersonResult(account, "already_member", group.participants[account]))
            else:
                group.participants[account] = Role.MEMBER
                change.join.append(account)
                change.results.append(PersonResult(account, "ok", Role.MEMBER, changed=True))
        self._groups[jid] = group
        if parent is not None:
            group.parent_jid = parent.jid
            parent.linked_groups.append(jid)
            change.linked.append(parent.jid)
        return group, change

    # --- members ----------------------------------------------------------------------

    def change_participants(
        self, group_jid: str, actor: str, action: str, participants: list[str]
    ) -> GroupChange:
        """``actor`` adds, removes, promotes or demotes people; each gets its own status.

        Adding needs an admin, or any member when ``member_add_mode`` is ``all``; adding
        someone waiting for approval lets them in. Removing, promoting and demoting need an
        admin; a super admin cannot be removed or demoted (``not_allowed``; one leaves
        instead), and nobody removes or demotes itself. Choice: the simulated network never
        answers ``invite_sent`` (it has no privacy settings that would force an invitation).
        """
        if action not in ("add", "remove", "promote", "demote"):
            raise GroupError(OperationCode.INVALID_REQUEST, f"unknown action {action!r}")
        people = parse_people(participants)
        group = self.get_for(group_jid, actor)
        members_may_add = action == "add" and group.member_add_mode == "all"
        if not group.is_admin(actor) and not members_may_add:
            raise GroupError(OperationCode.NOT_GROUP_ADMIN, f"{actor} is not an admin of {group_jid}")
        change = self._change("participants", group, actor)
        for person in people:
            account = self._resolve(person)
            if account is None:
                change.results.append(PersonResult(person, "not_found"))
            elif action == "add":
                change.results.append(self._add(group, account, change))
            else:
                change.results.append(self._alter(group, actor, account, action, change))
        return change

    def _add(self, group: Group, account: str, change: GroupChange) -> PersonResult:
        if account in group.participants:
            return PersonResult(account, "already_member", group.participants[account])
        group.pending = [r for r in group.pending if r["jid"] != account]
        group.participants[account] = Role.MEMBER
        change.join.append(account)
        return PersonResult(account, "ok", Role.MEMBER, changed=True)

    def _alter(
        self, group: Group, actor: str, account: str, action: str, change: GroupChange
    ) -> PersonResult:
        role = group.participants.get(account)
        if role is None:
            return PersonResult(account, "not_member")
        if action != "promote" and (role is Role.SUPER_ADMIN or account == actor):
            return PersonResult(account, "not_allowed", role)
        if action == "remove":
            del group.participants[account]
            change.leave.append(account)
            return PersonResult(account, "ok", None, changed=True)
        wanted = Role.MEMBER if action == "demote" else max(role, Role.ADMIN, key=_rank)
        if wanted is role:
            return PersonResult(account, "ok", role)
        group.participants[account] = wanted
        (change.promote if action == "promote" else change.demote).append(account)
        return PersonResult(account, "ok", wanted, changed=True)

    # --- settings and info ------------------------------------------------------------

    def update(
        self,
        group_jid: str,
        actor: str,
        *,
        name: str | None = None,
        topic: str | None = None,
        description: str | None = None,
        announce: bool | None = None,
        locked: bool | None = None,
        join_approval: bool | None = None,
        member_add_mode: str | None = None,
    ) -> GroupChange:
        """``actor`` changes the group's info and settings, all or nothing.

        ``topic`` and ``description`` are the one description field (both only when equal).
        ``fields`` of the answer holds only what really changed. Turning join approval off
        lets everyone waiting in (``join``), as the network does.
        """
        if topic is not None and description is not None and topic != description:
            raise GroupError(OperationCode.INVALID_REQUEST, "topic and description are one field: give one")
        text = topic if topic is not None else description
        given = {
            "name": name,
            "topic": text,
            "announce": announce,
            "locked": locked,
            "join_approval": join_approval,
            "member_add_mode": member_add_mode,
        }
        wanted = {key: value for key, value in given.items() if value is not None}
        if not wanted:
            raise GroupError(OperationCode.INVALID_REQUEST, "nothing to change")
        if "name" in wanted:
            _check_name(name)
        if text is not None and len(text) > TOPIC_MAX:
            raise GroupError(
                OperationCode.INVALID_REQUEST, f"a description has at most {TOPIC_MAX} characters"
            )
        if member_add_mode is not None:
            if member_add_mode not in MEMBER_ADD_MODES:
                raise GroupError(
                    OperationCode.INVALID_REQUEST, f"member_add_mode is one of {list(MEMBER_ADD_MODES)}"
                )
            wanted["member_add_mode"] = str(member_add_mode)  # stored as plain text, saved as JSON
        group = self.get_for(group_jid, actor)
        self._may_edit(group, actor, admin_only=bool(_ADMIN_ONLY & wanted.keys()))
        change = self._change("settings", group, actor)
        for key, value in wanted.items():
            if getattr(group, _ATTRIBUTES[key]) != value:
                setattr(group, _ATTRIBUTES[key], value)
                change.fields[key] = value
        if change.fields.get("join_approval") is False:
            for request in group.pending:
                group.participants[request["jid"]] = Role.MEMBER
                change.join.append(request["jid"])
            group.pending = []
        return change

    def _may_edit(self, group: Group, actor: str, *, admin_only: bool) -> None:
        if group.is_admin(actor) or not (admin_only or group.is_locked):
            return
        why = "only admins change settings" if admin_only else "the group is locked"
        raise GroupError(OperationCode.NOT_GROUP_ADMIN, f"{actor} is not an admin of {group.jid}: {why}")

    def set_picture(self, group_jid: str, actor: str, jpeg: bytes) -> GroupChange:
        """``actor`` sets the group's picture (a JPEG); ``fields`` has the new ``picture_id``."""
        if not jpeg.startswith(JPEG_MAGIC):
            raise GroupError(OperationCode.INVALID_IMAGE, "a group picture is a JPEG image")
        group = self.get_for(group_jid, actor)
        self._may_edit(group, actor, admin_only=False)
        group.picture_id = self._ids("picture")
        change = self._change("picture", group, actor)
        change.fields["picture_id"] = group.picture_id
        return change

    def set_ephemeral(self, group_jid: str, actor: str, seconds: int) -> GroupChange:
        """``actor`` sets the disappearing-message timer to one of the network's four values."""
        if isinstance(seconds, bool) or seconds not in EPHEMERAL_DURATIONS:
            raise GroupError(
                OperationCode.INVALID_DURATION, f"duration_seconds is one of {list(EPHEMERAL_DURATIONS)}"
            )
        group = self.get_for(group_jid, actor)
        self._may_edit(group, actor, admin_only=False)
        group.ephemeral_duration = seconds
        change = self._change("ephemeral", group, actor)
        change.fields["ephemeral_seconds"] = seconds
        return change

    # --- communities --------------------------------------------------------------------

    def _community(self, community_jid: str, actor: str) -> Group:
        community = self.get_for(community_jid, actor)
        if not community.is_community:
            raise GroupError(OperationCode.NOT_A_COMMUNITY, f"{community_jid} is not a community")
        if not community.is_admin(actor):
            raise GroupError(OperationCode.NOT_GROUP_ADMIN, f"{actor} is not an admin of {community_jid}")
        return community

    def link(self, community_jid: str, group_jid: str, actor: str) -> GroupChange:
        """An admin of both links a group into a community; one community per group
        (``already_linked`` otherwise, even the same one). ``linked`` names the child."""
        community = self._community(community_jid, actor)
        child = self.get_for(group_jid, actor)
        if child.is_community:
            raise GroupError(OperationCode.INVALID_REQUEST, "a community cannot be linked into another")
        if not child.is_admin(actor):
            raise GroupError(OperationCode.NOT_GROUP_ADMIN, f"{actor} is not an admin of {group_jid}")
        if child.parent_jid is not None:
            raise GroupError(OperationCode.ALREADY_LINKED, f"{group_jid} is linked to {child.parent_jid}")
        child.parent_jid = community.jid
        community.linked_groups.append(child.jid)
        change = self._change("link", community, actor)
        change.linked.append(child.jid)
        return change

    def unlink(self, community_jid: str, group_jid: str, actor: str) -> GroupChange:
        """An admin of the community removes a linked group (``not_linked`` if it is not)."""
        community = self._community(community_jid, actor)
        child = self.get(group_jid)
        if child.parent_jid != community.jid:
            raise GroupError(OperationCode.NOT_LINKED, f"{group_jid} is not linked to {community_jid}")
        child.parent_jid = None
        community.linked_groups.remove(child.jid)
        change = self._change("unlink", community, actor)
        change.unlinked.append(child.jid)
        return change

    # --- persistence ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "groups": [group.to_json() for group in self._groups.values()],
            "revoked": dict(self._revoked),
        }

    def load_json(self, data: dict[str, Any]) -> None:
        self._groups = {g["jid"]: Group.from_json(g) for g in data.get("groups", [])}
        self._revoked = dict(data.get("revoked", {}))


def _rank(role: Role) -> int:
    return (Role.MEMBER, Role.ADMIN, Role.SUPER_ADMIN).index(role)
