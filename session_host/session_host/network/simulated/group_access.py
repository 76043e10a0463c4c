"""The simulated network's groups as people reach them: reading and invite links.
:class:`~.groups.Groups` adds creating and administering.

Pure code, no locks and no I/O: the network holds the lock, emits the events and saves the state.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gateway import jids

from .group_records import (
    Group,
    GroupChange,
    GroupError,
    new_id,
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
