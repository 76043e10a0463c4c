"""The ``data`` payloads of the ``group.*`` events both network adapters produce.

Apart from :mod:`.payloads` because the group events are the widest (a group as it is now,
and a change of any of its settings or members); both adapters build them here so a webhook
consumer cannot tell them apart. The fields are documented in ``docs/events.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gateway.webhooks.catalog import EventName

from .payloads import iso_utc_or_none
from .port import NetworkEvent


def group_joined(
    *,
    group_jid: str | None,
    name: str,
    topic: str,
    owner: str | None,
    created_at: float | None,
    locked: bool,
    announce: bool,
    ephemeral_seconds: int,
    is_community: bool,
    community_jid: str | None,
    participants: Sequence[Mapping[str, Any]],
    reason: str | None,
    author: str | None,
) -> NetworkEvent:
    """The account was added to a group, joined one, or created one: the group as it is now
    (``participants``: ``{jid, is_admin, is_super_admin}`` each)."""
    return NetworkEvent(
        name=EventName.GROUP_JOINED,
        data={
            "group_jid": group_jid,
            "name": name,
            "topic": topic,
            "owner": owner,
            "created_at": iso_utc_or_none(created_at),
            "locked": locked,
            "announce": announce,
            "ephemeral_seconds": ephemeral_seconds,
            "is_community": is_community,
            "community_jid": community_jid,
            "participants": [
                {
                    "jid": p["jid"],
                    "is_admin": bool(p["is_admin"]),
                    "is_super_admin": bool(p["is_super_admin"]),
                }
                for p in participants
            ],
            "reason": reason,
            "author": author,
        },
    )


def group_info(
    *,
    group_jid: str | None,
    author: str | None,
    author_name: str | None,
    at: float | None,
    name: str | None = None,
    topic: str | None = None,
    locked: bool | None = None,
    announce: bool | None = None,
    ephemeral_seconds: int | None = None,
    deleted: bool = False,
    invite_link: str | None = None,
    join: Sequence[str | None] = (),
    leave: Sequence[str | None] = (),
    promote: Sequence[str | None] = (),
    demote: Sequence[str | None] = (),
    join_reason: str | None = None,
    linked_group: Mapping[str, Any] | None = None,
    unlinked_group: Mapping[str, Any] | None = None,
    join_approval: bool | None = None,
    member_add_mode: str | None = None,
    picture: Mapping[str, Any] | None = None,
) -> NetworkEvent:
    """Something about a group the account is in changed: only what changed is set, every
    other field ``None`` (the lists empty, ``deleted`` False). ``picture`` is
    ``{picture_id, removed}`` (``picture_id`` None where the network does not say it)."""
    return NetworkEvent(
        name=EventName.GROUP_INFO,
        data={
            "group_jid": group_jid,
            "author": author,
            "author_name": author_name,
            "timestamp": iso_utc_or_none(at),
            "name": name,
            "topic": topic,
            "locked": locked,
            "announce": announce,
            "ephemeral_seconds": ephemeral_seconds,
            "deleted": deleted,
            "invite_link": invite_link,
            "join": list(join),
            "leave": list(leave),
            "promote": list(promote),
            "demote": list(demote),
            "join_reason": join_reason,
            "linked_group": dict(linked_group) if linked_group is not None else None,
            "unlinked_group": dict(unlinked_group) if unlinked_group is not None else None,
            "join_approval": join_approval,
            "member_add_mode": member_add_mode,
            "picture": dict(picture) if picture is not None else None,
        },
    )
