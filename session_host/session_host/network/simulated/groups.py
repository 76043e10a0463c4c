"""The simulated network's groups and communities, under the network's own rules.

These rules bind every account alike, the gateway's devices and the simulator's other phones:

- the creator is the group's super admin; only admins change members, except that any
  member may add people when ``member_add_mode`` is ``all``;
- a super admin cannot be removed or demoted by anyone else (per-person ``not_allowed``);
- only admins change the settings (announce, locked, join approval, member-add mode) and
  the invite link; a locked group lets only admins edit its info (name, topic, picture,
  disappearing timer), an unlocked one lets every member;
- an announce group takes messages from admins only (:meth:`Groups.may_send`);
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

import time
from collections.abc import Callable
from typing import Any

from gateway import jids

from .group_records import (
    NAME_MAX,
    Group,
    GroupChange,
    GroupError,
    PersonResult,
    Role,
    new_id,
    parse_people,
)

Resolve = Callable[[str], str | None]
"""The account a participant JID (user JID or LID) names on the network, or None."""


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not 1 <= len(name) <= NAME_MAX:
        raise GroupError("invalid_request", f"a group name has 1 to {NAME_MAX} characters")
    return name


class Groups:
    """Every group and community of the network.

    Parameters
    ----------
    clock:
        Epoch seconds now (``created_at``, ``requested_at``, change times).
    ids:
        A fresh identifier of a kind (``group``, ``invite``, ``picture``): see
        :func:`.group_records.new_id`.
    resolve:
        Who a participant JID is on the network (None: nobody, per-person ``not_found``).
        By default every JID is an account.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        ids: Callable[[str], str] = new_id,
        resolve: Resolve = lambda jid: jid,
    ) -> None:
        self._clock = clock
        self._ids = ids
        self._resolve = resolve
        self._groups: dict[str, Group] = {}
        self._revoked: dict[str, str] = {}  # revoked invite code -> group JID

    # --- reading ----------------------------------------------------------------------

    def get(self, group_jid: str) -> Group:
        """The network's record of a group, whoever asks (the simulator's control API).

        Raises
        ------
        GroupError
            ``invalid_group_jid`` for a malformed JID; ``group_not_found``.
        """
        if not jids.is_group_jid(group_jid):
            raise GroupError("invalid_group_jid", f"not a group JID: {group_jid!r}")
        group = self._groups.get(group_jid)
        if group is None:
            raise GroupError("group_not_found", f"{group_jid} does not exist")
        return group

    def get_for(self, group_jid: str, jid: str) -> Group:
        """A group as a participant sees it; one ``jid`` is not in is ``group_not_found``."""
        group = self.get(group_jid)
        if jid not in group.participants:
            raise GroupError("group_not_found", f"{jid} is not in {group_jid}")
        return group

    def groups_of(self, jid: str) -> list[Group]:
        """The groups and communities ``jid`` is in, oldest first."""
        return [g for g in self._groups.values() if jid in g.participants]

    def may_send(self, group_jid: str, jid: str) -> bool:
        """Whether ``jid`` may send to the group: a participant, and an admin if it is announce."""
        group = self._groups.get(group_jid)
        if group is None or jid not in group.participants:
            return False
        return not group.is_announce or group.is_admin(jid)

    def _admin(self, group_jid: str, jid: str) -> Group:
        group = self.get_for(group_jid, jid)
        if not group.is_admin(jid):
            raise GroupError("not_group_admin", f"{jid} is not an admin of {group_jid}")
        return group

    def _change(self, kind: str, group: Group, author: str | None) -> GroupChange:
        return GroupChange(kind, group.jid, author, self._clock())

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
                raise GroupError("invalid_request", "a community cannot belong to a community")
            parent = self.get_for(parent_jid, creator)
            if not parent.is_community:
                raise GroupError("not_a_community", f"{parent_jid} is not a community")
            if not parent.is_admin(creator):
                raise GroupError("not_group_admin", f"{creator} is not an admin of {parent_jid}")
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
        admin; a super admin cannot be removed or demoted by anyone (``not_allowed``; one
        leaves instead), nor can the actor remove itself. Choice: the simulated network never
        answers ``invite_sent`` (it has no privacy settings that would force an invitation).
        """
        if action not in ("add", "remove", "promote", "demote"):
            raise GroupError("invalid_request", f"unknown action {action!r}")
        people = parse_people(participants)
        group = self.get_for(group_jid, actor)
        members_may_add = action == "add" and group.member_add_mode == "all"
        if not group.is_admin(actor) and not members_may_add:
            raise GroupError("not_group_admin", f"{actor} is not an admin of {group_jid}")
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
