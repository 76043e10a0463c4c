"""The simulated network's groups as people reach them: reading, invite links,
joining, join requests and leaving. :class:`~.groups.Groups` adds creating and administering.

Pure code, no locks and no I/O: the network holds the lock, emits the events and saves the state.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gateway import jids
from gateway.groups import invites
from gateway.groups.codes import INVITE_HOST, OperationCode

from .group_records import (
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


class GroupAccess:
    """Every group and community of the network, as people read, join and leave them.

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
            raise GroupError(OperationCode.INVALID_GROUP_JID, f"not a group JID: {group_jid!r}")
        group = self._groups.get(group_jid)
        if group is None:
            raise GroupError(OperationCode.GROUP_NOT_FOUND, f"{group_jid} does not exist")
        return group

    def get_for(self, group_jid: str, jid: str) -> Group:
        """A group as a participant sees it; one ``jid`` is not in is ``group_not_found``."""
        group = self.get(group_jid)
        if jid not in group.participants:
            raise GroupError(OperationCode.GROUP_NOT_FOUND, f"{jid} is not in {group_jid}")
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

    def audience(self, group_jid: str, sender: str) -> list[str]:
        """Whom a message of ``sender`` to the group reaches: every other member.

        Raises
        ------
        GroupError
            ``group_not_found`` when there is no such group or ``sender`` is not in it,
            ``not_group_admin`` in an announce group when ``sender`` is no admin (:meth:`may_send`).
        """
        group = self.get_for(group_jid, sender)
        if not self.may_send(group_jid, sender):
            raise GroupError(
                OperationCode.NOT_GROUP_ADMIN, f"only admins send to {group_jid}: it is an announce group"
            )
        return [jid for jid in group.participants if jid != sender]

    def _admin(self, group_jid: str, jid: str) -> Group:
        group = self.get_for(group_jid, jid)
        if not group.is_admin(jid):
            raise GroupError(OperationCode.NOT_GROUP_ADMIN, f"{jid} is not an admin of {group_jid}")
        return group

    def _change(self, kind: str, group: Group, author: str | None) -> GroupChange:
        return GroupChange(kind, group.jid, author, self._clock())

    # --- invite links -----------------------------------------------------------------

    def invite_link(self, group_jid: str, actor: str) -> str:
        """The group's invite link; the network shows it to admins only."""
        return self._admin(group_jid, actor).invite_link

    def reset_invite(self, group_jid: str, actor: str) -> GroupChange:
        """An admin revokes the invite link: the old code answers ``invite_link_revoked``."""
        group = self._admin(group_jid, actor)
        self._revoked[group.invite_code] = group.jid
        group.invite_code = self._ids("invite")
        change = self._change("invite", group, actor)
        change.fields["invite_link"] = group.invite_link
        return change

    def _by_code(self, code: str) -> Group:
        group = next((g for g in self._groups.values() if g.invite_code == code), None)
        if group is not None:
            return group
        if code in self._revoked:
            raise GroupError(OperationCode.INVITE_LINK_REVOKED, "the invite link was reset")
        raise GroupError(OperationCode.GROUP_NOT_FOUND, "no group has this invite link")

    # --- joining ----------------------------------------------------------------------

    def join(self, jid: str, code: str, *, group_jid: str | None = None) -> GroupChange:
        """``jid`` joins by invite code (``group_jid``: the code form, which must match).

        With join approval on, ``jid`` waits in the pending list (``requested``; asking
        again keeps the first request); otherwise it is a member (``join``, reason
        ``invite``). The group JID is what the API's ``approval_request_jid`` names.

        Raises
        ------
        GroupError
            ``group_not_found`` (unknown code, or not this group's), ``invite_link_revoked``,
            ``already_member``.
        """
        group = self._by_code(code)
        if group_jid is not None and group_jid != group.jid:
            raise GroupError(OperationCode.GROUP_NOT_FOUND, f"the invite code is not one of {group_jid}")
        if jid in group.participants:
            raise GroupError(OperationCode.ALREADY_MEMBER, f"{jid} is already in {group.jid}")
        change = self._change("join", group, jid)
        if group.join_approval:
            if group.pending_of(jid) is None:
                group.pending.append({"jid": jid, "requested_at": change.at})
            change.requested.append(jid)
            return change
        group.participants[jid] = Role.MEMBER
        change.join.append(jid)
        change.join_reason = "invite"
        return change

    def requests(self, group_jid: str, actor: str) -> list[dict[str, Any]]:
        """The join requests waiting, ``[{jid, requested_at}]``, oldest first; admins only."""
        return [dict(r) for r in self._admin(group_jid, actor).pending]

    def answer_requests(
        self, group_jid: str, actor: str, action: str, participants: list[str]
    ) -> GroupChange:
        """An admin approves (the person becomes a member) or rejects join requests;
        per person ``ok``, or ``not_found`` when no such request waits."""
        if action not in ("approve", "reject"):
            raise GroupError(OperationCode.INVALID_REQUEST, f"unknown action {action!r}")
        people = parse_people(participants)
        group = self._admin(group_jid, actor)
        change = self._change("requests", group, actor)
        for person in people:
            account = self._resolve(person) or person
            if group.pending_of(account) is None:
                change.results.append(PersonResult(account, "not_found"))
                continue
            group.pending = [r for r in group.pending if r["jid"] != account]
            if action == "reject":
                change.results.append(PersonResult(account, "ok", None, changed=True))
                continue
            group.participants[account] = Role.MEMBER
            change.join.append(account)
            change.results.append(PersonResult(account, "ok", Role.MEMBER, changed=True))
        return change

    # --- leaving ----------------------------------------------------------------------

    def leave(self, group_jid: str, jid: str) -> GroupChange:
        """``jid`` leaves. Choice: when the last super admin leaves, the longest-standing
        admin becomes super admin, or else the longest-standing member (``promote``); the
        ``owner`` stays the creator, as on the network. When nobody is left, the group ends
        (``deleted``): its invite link stops working and its community links are removed
        (``unlinked``). Leaving a community leaves the community only, not its groups."""
        group = self.get_for(group_jid, jid)
        role = group.participants.pop(jid)
        change = self._change("leave", group, jid)
        change.leave.append(jid)
        if not group.participants:
            self._end(group, change)
        elif role is Role.SUPER_ADMIN and Role.SUPER_ADMIN not in group.participants.values():
            admins = [p for p, r in group.participants.items() if r is Role.ADMIN]
            heir = admins[0] if admins else next(iter(group.participants))
            group.participants[heir] = Role.SUPER_ADMIN
            change.promote.append(heir)
        return change

    def _end(self, group: Group, change: GroupChange) -> None:
        del self._groups[group.jid]
        change.fields["deleted"] = True
        parent = self._groups.get(group.parent_jid or "")
        if parent is not None:
            parent.linked_groups.remove(group.jid)
            change.unlinked.append(parent.jid)
        for child_jid in group.linked_groups:
            child = self._groups.get(child_jid)
            if child is not None:
                child.parent_jid = None
                change.unlinked.append(child_jid)
        group.linked_groups = []


def code_of_link(link: str) -> str:
    """The invite code of an invite link (``https://chat.whatsapp.com/<code>``), read as the
    gateway reads it (:func:`gateway.groups.invites.code_of_link`).

    Raises
    ------
    GroupError
        ``invalid_invite_link`` when the link has no ``chat.whatsapp.com/`` or no code.
    """
    code = invites.code_of_link(link)
    if code is None:
        raise GroupError(OperationCode.INVALID_INVITE_LINK, f"not an invite link of {INVITE_HOST}: {link!r}")
    return code
