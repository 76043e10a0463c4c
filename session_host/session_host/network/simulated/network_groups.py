"""What the simulator's phones do with groups (``SimulatedNetwork.groups``): create,
administer, join and answer requests.

The rules are :class:`~.groups.Groups`' (in the world, saved with it); each action is the
phone's turn on the network (:meth:`~.core.NetworkCore.phone`: the lock, the acting account,
the state saved). Refusals are :class:`~.group_records.GroupError` (the lowercase group
codes); an unknown acting phone is ``ACCOUNT_NOT_FOUND``.

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
from .group_records import Group

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


class PhoneGroups:
    """The group actions of the simulator's phones, on one network."""

    def __init__(self, network: NetworkCore) -> None:
        self._network = network

    def create(
        self, phone: str, name: str, participants: list[str], options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The account creates a group (a community with ``options.community``) as its
        super admin: ``{jid, participants}`` with each person's status."""
        wanted = {key: value for key, value in (options or {}).items() if key in GROUP_OPTIONS}
        with self._network.phone(phone) as turn:
            group, change = turn.world.groups.create(turn.account.jid, name, participants, **wanted)
            turn.changed(change)
            return {"jid": group.jid, "participants": [r.to_json() for r in change.results]}

    def record(self, group_jid: str) -> dict[str, Any]:
        """The network's record of a group, whoever asks (``group_not_found`` otherwise)."""
        with self._network.reading() as world:
            return group_view(world.groups.get(group_jid))

    def change_participants(
        self, phone: str, group_jid: str, action: str, participants: list[str]
    ) -> dict[str, Any]:
        """The account adds, removes, promotes or demotes people: ``{group_jid, participants}``."""
        with self._network.phone(phone) as turn:
            change = turn.world.groups.change_participants(group_jid, turn.account.jid, action, participants)
            turn.changed(change)
            return {"group_jid": group_jid, "participants": [r.to_json() for r in change.results]}

    def update(self, phone: str, group_jid: str, settings: dict[str, Any]) -> dict[str, Any]:
        """The account changes the group with a PATCH /groups/{jid} body; the refreshed record."""
        wanted = {GROUP_SETTINGS[key]: value for key, value in settings.items() if key in GROUP_SETTINGS}
        with self._network.phone(phone) as turn:
            turn.changed(turn.world.groups.update(group_jid, turn.account.jid, **wanted))
            return group_view(turn.world.groups.get(group_jid))

    def answer_requests(
        self, phone: str, group_jid: str, action: str, participants: list[str]
    ) -> dict[str, Any]:
        """The account, as an admin, approves or rejects join requests: ``{group_jid, participants}``."""
        with self._network.phone(phone) as turn:
            change = turn.world.groups.answer_requests(group_jid, turn.account.jid, action, participants)
            turn.changed(change)
            return {"group_jid": group_jid, "participants": [r.to_json() for r in change.results]}

    def join(self, phone: str, link: str) -> dict[str, Any]:
        """The account joins by invite link, or asks to where approval is on:
        ``{group_jid, pending_approval}``."""
        code = code_of_link(link)
        with self._network.phone(phone) as turn:
            change = turn.world.groups.join(turn.account.jid, code)
            turn.changed(change)
            return {"group_jid": change.group_jid, "pending_approval": bool(change.requested)}

    def leave(self, phone: str, group_jid: str) -> dict[str, Any]:
        """The account leaves the group (the last one out ends it): ``{group_jid}``."""
        with self._network.phone(phone) as turn:
            turn.changed(turn.world.groups.leave(group_jid, turn.account.jid))
            return {"group_jid": group_jid}

    def reset_invite(self, phone: str, group_jid: str) -> dict[str, Any]:
        """The account, as an admin, revokes the invite link: ``{group_jid, invite_link}`` (new)."""
        with self._network.phone(phone) as turn:
            change = turn.world.groups.reset_invite(group_jid, turn.account.jid)
            turn.changed(change)
            return {"group_jid": group_jid, "invite_link": change.fields["invite_link"]}

    def set_ephemeral(self, phone: str, group_jid: str, seconds: int) -> dict[str, Any]:
        """The account sets the disappearing-message timer: ``{group_jid, duration_seconds}``."""
        with self._network.phone(phone) as turn:
            turn.changed(turn.world.groups.set_ephemeral(group_jid, turn.account.jid, seconds))
            return {"group_jid": group_jid, "duration_seconds": seconds}

    def link(self, phone: str, community_jid: str, group_jid: str) -> dict[str, Any]:
        """The account, an admin of both, links a group into a community: ``{community_jid, group_jid}``."""
        with self._network.phone(phone) as turn:
            turn.changed(turn.world.groups.link(community_jid, group_jid, turn.account.jid))
            return {"community_jid": community_jid, "group_jid": group_jid}

    def unlink(self, phone: str, community_jid: str, group_jid: str) -> dict[str, Any]:
        """The account, an admin of the community, removes a group from it: ``{community_jid, group_jid}``."""
        with self._network.phone(phone) as turn:
            turn.changed(turn.world.groups.unlink(community_jid, group_jid, turn.account.jid))
            return {"community_jid": community_jid, "group_jid": group_jid}
