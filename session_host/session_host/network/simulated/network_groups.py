"""What the simulator's phones do with groups: create, administer, join and answer requests.

The rules are :class:`~.groups.Groups`' (in the world, saved with it); this layer takes the
lock, names the acting account and saves the state. Refusals are :class:`~.group_records.GroupError`
(the lowercase group codes); an unknown acting phone is ``ACCOUNT_NOT_FOUND``.

Every account that gets into a group (created with it, added, approved, let in when
join approval is turned off, joined by link)
has ``group.joined`` on its gateway devices, the other members ``group.info``
(:meth:`~.world.World.group_changed`). Messages to groups are the traffic's
(:meth:`~.network.SimulatedNetwork.send_from_account`).
"""

from __future__ import annotations

from typing import Any

from ..payloads import iso_utc
from .core import NetworkCore
from .group_access import code_of_link
from .group_records import Group, GroupChange
from .model import ControlError

GROUP_OPTIONS = ("announcement", "locked", "join_approval", "community", "parent_jid")
"""The ``options`` of POST /groups, as :meth:`.groups.Groups.create` takes them."""
GROUP_SETTINGS = {
    "name": "name",
    "topic": "topic",
    "description": "description",
    "announcement": "announce",
    "locked": "locked",
    "join_approval": "join_approval",
    "member_add_mode": "member_add_mode",
}
"""The PATCH /groups/{jid} fields and the :meth:`.groups.Groups.update` argument of each."""


def group_view(group: Group) -> dict[str, Any]:
    """The network's record as the control API shows it: the Group fields of the
    specification and the decisions (times in ISO 8601 UTC), ``participants``, ``pending``,
    ``invite_link`` and ``linked_groups``."""
    data = group.to_json()
    del data["invite_code"]
    data["created_at"] = iso_utc(group.created_at)
    data["pending"] = [{"jid": r["jid"], "requested_at": iso_utc(r["requested_at"])} for r in group.pending]
    return data


class NetworkGroups(NetworkCore):
    """The group side of :class:`~.network.SimulatedNetwork`."""

    def _changed(self, change: GroupChange) -> GroupChange:
        """Tell the members' devices of a change and keep the new state (under the lock)."""
        self._world.group_changed(change)
        self._save()
        return change

    def _actor(self, phone: str) -> str:
        account = self._world.accounts.get(phone)
        if account is None:
            raise ControlError(404, "ACCOUNT_NOT_FOUND", f"no account for phone {phone}")
        return account.jid

    def create_group(
        self, phone: str, name: str, participants: list[str], options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The account creates a group (a community with ``options.community``) as its
        super admin: ``{jid, participants}`` with each person's status."""
        wanted = {key: value for key, value in (options or {}).items() if key in GROUP_OPTIONS}
        with self._lock:
            group, change = self._world.groups.create(self._actor(phone), name, participants, **wanted)
            self._changed(change)
            return {"jid": group.jid, "participants": [r.to_json() for r in change.results]}

    def group_record(self, group_jid: str) -> dict[str, Any]:
        """The network's record of a group, whoever asks (``group_not_found`` otherwise)."""
        with self._lock:
            return group_view(self._world.groups.get(group_jid))

    def change_group_participants(
        self, phone: str, group_jid: str, action: str, participants: list[str]
    ) -> dict[str, Any]:
        """The account adds, removes, promotes or demotes people: ``{group_jid, participants}``."""
        with self._lock:
            change = self._world.groups.change_participants(
                group_jid, self._actor(phone), action, participants
            )
            self._changed(change)
            return {"group_jid": group_jid, "participants": [r.to_json() for r in change.results]}

    def update_group(self, phone: str, group_jid: str, settings: dict[str, Any]) -> dict[str, Any]:
        """The account changes the group with a PATCH /groups/{jid} body; the refreshed record."""
        wanted = {GROUP_SETTINGS[key]: value for key, value in settings.items() if key in GROUP_SETTINGS}
        with self._lock:
            change = self._world.groups.update(group_jid, self._actor(phone), **wanted)
            self._changed(change)
            return group_view(self._world.groups.get(group_jid))

    def answer_group_requests(
        self, phone: str, group_jid: str, action: str, participants: list[str]
    ) -> dict[str, Any]:
        """The account, as an admin, approves or rejects join requests: ``{group_jid, participants}``."""
        with self._lock:
            change = self._world.groups.answer_requests(group_jid, self._actor(phone), action, participants)
            self._changed(change)
            return {"group_jid": group_jid, "participants": [r.to_json() for r in change.results]}

    def join_group(self, phone: str, link: str) -> dict[str, Any]:
        """The account joins by invite link, or asks to where approval is on:
        ``{group_jid, pending_approval}``."""
        code = code_of_link(link)
        with self._lock:
            change = self._world.groups.join(self._actor(phone), code)
            self._changed(change)
            return {"group_jid": change.group_jid, "pending_approval": bool(change.requested)}

    def leave_group(self, phone: str, group_jid: str) -> dict[str, Any]:
        """The account leaves the group (the last one out ends it): ``{group_jid}``."""
        with self._lock:
            self._changed(self._world.groups.leave(group_jid, self._actor(phone)))
            return {"group_jid": group_jid}

    def reset_group_invite(self, phone: str, group_jid: str) -> dict[str, Any]:
        """The account, as an admin, revokes the invite link: ``{group_jid, invite_link}`` (new)."""
        with self._lock:
            change = self._changed(self._world.groups.reset_invite(group_jid, self._actor(phone)))
            return {"group_jid": group_jid, "invite_link": change.fields["invite_link"]}

    def set_group_ephemeral(self, phone: str, group_jid: str, seconds: int) -> dict[str, Any]:
        """The account sets the disappearing-message timer: ``{group_jid, duration_seconds}``."""
        with self._lock:
            self._changed(self._world.groups.set_ephemeral(group_jid, self._actor(phone), seconds))
            return {"group_jid": group_jid, "duration_seconds": seconds}

    def link_group(self, phone: str, community_jid: str, group_jid: str) -> dict[str, Any]:
        """The account, an admin of both, links a group into a community: ``{community_jid, group_jid}``."""
        with self._lock:
            self._changed(self._world.groups.link(community_jid, group_jid, self._actor(phone)))
            return {"community_jid": community_jid, "group_jid": group_jid}

    def unlink_group(self, phone: str, community_jid: str, group_jid: str) -> dict[str, Any]:
        """The account, an admin of the community, removes a group from it: ``{community_jid, group_jid}``."""
        with self._lock:
            self._changed(self._world.groups.unlink(community_jid, group_jid, self._actor(phone)))
            return {"community_jid": community_jid, "group_jid": group_jid}
