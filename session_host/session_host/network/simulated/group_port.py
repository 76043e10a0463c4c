"""The simulated network's group records as the port's records (:mod:`..group_types`).

The rules model (:mod:`.groups`) keeps its own records, shaped for the network; devices get
what every adapter answers, so the session host cannot tell the adapters apart. Pure code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..group_types import GroupInfo, GroupMember, MemberAddMode, MemberOutcome, PendingJoinRequest
from .group_records import Group, PersonResult, Role

LidOf = Callable[[str], str | None]
"""The LID of the account a participant JID names, when the network knows it."""


def group_info(group: Group, lid_of: LidOf) -> GroupInfo:
    """The group as a member's device reads it: participants in the order they came in."""
    return GroupInfo(
        jid=group.jid,
        name=group.name,
        topic=group.topic,
        owner=group.owner,
        created_at=group.created_at,
        is_announce=group.is_announce,
        is_locked=group.is_locked,
        join_approval=group.join_approval,
        member_add_mode=MemberAddMode(group.member_add_mode),
        ephemeral_duration=group.ephemeral_duration,
        is_community=group.is_community,
        parent_jid=group.parent_jid,
        participants=tuple(
            GroupMember(
                jid=jid,
                is_admin=role.is_admin,
                is_super_admin=role is Role.SUPER_ADMIN,
                lid=lid_of(jid),
            )
            for jid, role in group.participants.items()
        ),
    )


def member_result(result: PersonResult) -> MemberOutcome:
    """One person's part of an operation, with the admin flags it has now."""
    return MemberOutcome(
        jid=result.jid,
        status=result.status,
        is_admin=result.role is not None and result.role.is_admin,
        is_super_admin=result.role is Role.SUPER_ADMIN,
    )


def join_request(request: dict[str, Any]) -> PendingJoinRequest:
    return PendingJoinRequest(jid=request["jid"], requested_at=request["requested_at"])
