"""neonize's group protobufs → the port's group records (:mod:`..group_types`).

What neonize 0.5.2 hands over, and its traps:

- ``GroupInfo.GroupCreated`` is a *float32* of epoch seconds (neonize's Go side converts it),
  so a creation time is only exact to about two minutes; it is passed on as it comes.
- ``GroupParticipantRequest.TimeAt`` is in *microseconds* (``RequestedAt.UnixMicro()``).
- neonize's ``GroupInfo`` has no join-approval flag and no member-add mode (whatsmeow reads
  both; the binding drops them): ``join_approval`` is only known for a community, from
  ``GroupParent.DefaultMembershipApprovalMode``, and ``member_add_mode`` is always None.
- A person is named by a phone JID or a LID; ``PhoneNumber`` and ``LID`` carry the other
  form when the network gives it. The phone JID wins, so callers see the address they use.
- In the answer to a create or a participant change, a person the network did not take
  carries ``Error`` (whatsmeow's per-person code) and, when an invitation was sent instead,
  ``AddRequest``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from neonize.proto.Neonize_pb2 import GroupInfo as NeonizeGroupInfo
from neonize.proto.Neonize_pb2 import GroupParticipant, GroupParticipantRequest

from ..group_types import GroupInfo, GroupMember, MemberOutcome, ParticipantAction, PendingJoinRequest
from .groups import ephemeral_seconds, topic_of
from .jids import is_lid, jid_str, prefer_phone

REQUEST_REQUIRED = "request_required"
"""The one approval mode whatsmeow names for a community (and its default when none is given)."""

_MICROSECONDS = 1_000_000
_NOT_ON_NETWORK = 404  # whatsmeow per-person codes (the network's HTTP-like numbers)
_ALREADY_MEMBER = 409


def member(person: GroupParticipant) -> GroupMember:
    """A participant: the phone JID when known, else the LID; ``lid`` when known."""
    lid = person.JID if is_lid(person.JID) else person.LID
    return GroupMember(
        jid=jid_str(prefer_phone(person.JID, person.PhoneNumber)) or "",
        is_admin=person.IsAdmin or person.IsSuperAdmin,
        is_super_admin=person.IsSuperAdmin,
        lid=jid_str(lid),
    )


def group_info(info: NeonizeGroupInfo) -> GroupInfo:
    """The port's record of a group; people the network refused (``Error``) are not members."""
    parent = info.GroupParent
    return GroupInfo(
        jid=jid_str(info.JID) or "",
        name=info.GroupName.Name,
        topic=topic_of(info.GroupTopic),
        owner=jid_str(prefer_phone(info.OwnerJID, info.OwnerPN)),
        created_at=float(info.GroupCreated),
        is_announce=info.GroupAnnounce.IsAnnounce,
        is_locked=info.GroupLocked.isLocked,
        join_approval=parent.DefaultMembershipApprovalMode == REQUEST_REQUIRED if parent.IsParent else None,
        member_add_mode=None,
        ephemeral_duration=ephemeral_seconds(info.GroupEphemeral),
        is_community=parent.IsParent,
        parent_jid=jid_str(info.GroupLinkedParent.LinkedParentJID),
        participants=tuple(member(person) for person in info.Participants if not person.Error),
    )


def _status(person: GroupParticipant, action: ParticipantAction) -> str:
    """whatsmeow's per-person answer as a per-person status (see :class:`MemberOutcome`)."""
    if person.HasField("AddRequest") and person.AddRequest.Code:
        return "invite_sent"  # the person's privacy settings turned the add into an invitation
    if not person.Error:
        return "ok"
    if person.Error == _NOT_ON_NETWORK:
        return "not_found" if action is ParticipantAction.ADD else "not_member"
    if person.Error == _ALREADY_MEMBER:
        return "already_member"
    return "not_allowed"  # 403 (privacy, or a super admin), 408 (just left), and the rest


def _result(asked: str, person: GroupParticipant | None, action: ParticipantAction) -> MemberOutcome:
    """The person's result, named by their phone JID when the network gives it (someone asked
    for by LID comes back as the user JID, as everywhere else in the gateway)."""
    if person is None:
        return MemberOutcome(jid=asked, status="not_found")  # the network said nothing about this person
    asked = jid_str(prefer_phone(person.JID, person.PhoneNumber)) or asked
    status = _status(person, action)
    is_admin, is_super_admin = person.IsAdmin or person.IsSuperAdmin, person.IsSuperAdmin
    if status == "ok" and action is ParticipantAction.PROMOTE:
        is_admin = True
    elif status == "ok" and action in (ParticipantAction.DEMOTE, ParticipantAction.REMOVE):
        is_admin = is_super_admin = False
    return MemberOutcome(jid=asked, status=status, is_admin=is_admin, is_super_admin=is_super_admin)


def _by_address(answered: Iterable[GroupParticipant]) -> dict[str, GroupParticipant]:
    """Each answered person under every address the network gave for them."""
    index: dict[str, GroupParticipant] = {}
    for person in answered:
        for address in (person.JID, person.PhoneNumber, person.LID):
            text = jid_str(address)
            if text:
                index.setdefault(text, person)
    return index


def member_results(
    asked: Sequence[str], answered: Iterable[GroupParticipant], action: ParticipantAction
) -> list[MemberOutcome]:
    """One result per person asked (bare JIDs), in the order asked, from the network's answer.

    Flags are the person's after the operation: a promoted person is an admin, a demoted or
    removed one is not; otherwise they are what the network reported.
    """
    index = _by_address(answered)
    return [_result(jid, index.get(jid), action) for jid in asked]


def join_requests(requests: Iterable[GroupParticipantRequest]) -> list[PendingJoinRequest]:
    """The waiting join requests; ``TimeAt`` is in microseconds."""
    return [
        PendingJoinRequest(
            jid=jid_str(request.Participant) or "", requested_at=request.TimeAt / _MICROSECONDS
        )
        for request in requests
    ]
