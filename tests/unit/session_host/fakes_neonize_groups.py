"""Builders for the neonize adapter's group tests: a connected session around the autospec
``NewClient``, and neonize's group protobufs as its Go side fills them (every field set)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fakes_neonize import EMPTY, FakeNetwork, connected, jid, patched_client, run
from neonize.proto.Neonize_pb2 import (
    GroupAnnounce,
    GroupEphemeral,
    GroupInfo,
    GroupLinkedParent,
    GroupLocked,
    GroupName,
    GroupParent,
    GroupParticipant,
    GroupParticipantAddRequest,
    GroupTopic,
)

GROUP_JID = "120363000000000001@g.us"
GROUP = jid("120363000000000001", "g.us")
COMMUNITY_JID = "120363000000000009@g.us"
COMMUNITY = jid("120363000000000009", "g.us")
OWN = jid("12025550123")
ANA = jid("12025550101")
BOB = jid("12025550102")
CAI = jid("12025550103")
DEE = jid("12025550104")
DEE_LID = jid("207180606656725", "lid")
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 16
CREATED = 1_700_000_000.0  # exact in a float32, as neonize sends creation times

Body = Callable[[Any, Any], Awaitable[None]]


def on_connected(tmp_path: Path, body: Body) -> None:
    """Run ``body(session, client)`` on a connected device, then close the session."""
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session, _ = await connected(tmp_path, fake)
            try:
                await body(session, fake.client)
            finally:
                await session.close()

    run(scenario())


def person(
    who: Any, *, admin: bool = False, super_admin: bool = False, lid: Any = EMPTY, phone: Any = None
) -> GroupParticipant:
    return GroupParticipant(
        JID=who,
        LID=lid,
        PhoneNumber=who if phone is None else phone,
        IsAdmin=admin or super_admin,
        IsSuperAdmin=super_admin,
        DisplayName="",
        Error=0,
    )


def refused_person(who: Any, code: int, *, invite: bool = False) -> GroupParticipant:
    answer = person(who)
    answer.Error = code
    if invite:
        answer.AddRequest.CopyFrom(GroupParticipantAddRequest(Code="AbCdEf", Expiration=1_700_600_000.0))
    return answer


def group_proto(
    *participants: GroupParticipant,
    group: Any = GROUP,
    community: bool = False,
    parent: Any = EMPTY,
    announce: bool = False,
    locked: bool = False,
    timer: int = 0,
) -> GroupInfo:
    return GroupInfo(
        JID=group,
        OwnerJID=OWN,
        OwnerPN=EMPTY,
        GroupName=GroupName(Name="Team", NameSetAt=0, NameSetBy=OWN),
        GroupTopic=GroupTopic(Topic="Plans", TopicID="T1", TopicSetAt=0, TopicSetBy=OWN, TopicDeleted=False),
        GroupLocked=GroupLocked(isLocked=locked),
        GroupAnnounce=GroupAnnounce(IsAnnounce=announce, AnnounceVersionID=""),
        GroupEphemeral=GroupEphemeral(IsEphemeral=timer > 0, DisappearingTimer=timer),
        GroupParent=GroupParent(
            IsParent=community, DefaultMembershipApprovalMode="request_required" if community else ""
        ),
        GroupLinkedParent=GroupLinkedParent(LinkedParentJID=parent),
        GroupCreated=CREATED,
        ParticipantVersionID="",
        Participants=[person(OWN, super_admin=True), *participants],
    )


def library_calls(client: Any) -> list[str]:
    return [name for name, *_ in client.mock_calls if name != "connect"]
