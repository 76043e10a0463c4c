"""The neonize adapter's group operations against an autospec ``NewClient`` and neonize's own
protobuf classes: creating and reading groups (the exact library call, the conversion of its
answer, what is unsupported). Members and settings: ``test_neonize_group_changes.py``; joining,
errors: ``test_neonize_group_joining.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes_neonize import ACCOUNT_JID, EMPTY, jid
from fakes_neonize_groups import (
    ANA,
    BOB,
    CAI,
    COMMUNITY,
    COMMUNITY_JID,
    CREATED,
    DEE,
    DEE_LID,
    GROUP,
    GROUP_JID,
    group_proto,
    library_calls,
    on_connected,
    person,
    refused_person,
)
from neonize.exc import CreateGroupError, SetGroupLockedError
from neonize.proto.Neonize_pb2 import GroupLinkedParent, GroupParent

from gateway.bus.contracts.groups import GroupInfo
from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import (
    GroupCreated,
    GroupMember,
    GroupOptions,
    MemberOutcome,
)
from session_host.network.port import NetworkError

# --- creating -------------------------------------------------------------------------------


def test_create_group_sends_the_people_but_the_creator_and_reports_each_person(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        # Given a network that adds ANA, invites BOB (privacy) and does not know CAI
        client.create_group.return_value = group_proto(
            person(ANA), refused_person(BOB, 403, invite=True), refused_person(CAI, 404)
        )
        # When the device creates a group with them, itself and a duplicate
        created = await session.groups.create_group(
            "Team",
            ["12025550101", ACCOUNT_JID, "12025550102@s.whatsapp.net", "12025550103", "12025550101"],
            GroupOptions(),
        )
        # Then the library gets the people once each, without the creator, and no parent
        client.create_group.assert_called_once_with(
            "Team", [ANA, BOB, CAI], linked_parent=None, group_parent=None
        )
        # And each person asked gets a result, in order; only real members are in the group
        assert created.participants == (
            MemberOutcome(jid="12025550101@s.whatsapp.net", status="ok"),
            MemberOutcome(jid=ACCOUNT_JID, status="already_member", is_admin=True, is_super_admin=True),
            MemberOutcome(jid="12025550102@s.whatsapp.net", status="invite_sent"),
            MemberOutcome(jid="12025550103@s.whatsapp.net", status="not_found"),
        )
        assert [p.jid for p in created.group.participants] == [ACCOUNT_JID, "12025550101@s.whatsapp.net"]
        assert created.group.jid == GROUP_JID
        assert created.group.join_approval is None
        assert library_calls(client) == ["create_group"]

    on_connected(tmp_path, body)


def test_create_community_with_join_approval_sets_both_fields_of_the_group_parent(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.create_group.return_value = group_proto(group=COMMUNITY, community=True)
        # When the device creates a community that approves its members
        created = await session.groups.create_group(
            "Hub", [], GroupOptions(community=True, join_approval=True)
        )
        # Then GroupParent carries IsParent and the mode, both set (neonize's Go side reads both)
        parent = client.create_group.call_args.kwargs["group_parent"]
        assert parent == GroupParent(IsParent=True, DefaultMembershipApprovalMode="request_required")
        assert parent.HasField("IsParent")
        assert parent.HasField("DefaultMembershipApprovalMode")
        assert client.create_group.call_args.kwargs["linked_parent"] is None
        assert created.group.is_community is True
        assert created.group.join_approval is True

    on_connected(tmp_path, body)


def test_create_group_in_a_community_passes_the_linked_parent(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.create_group.return_value = group_proto(parent=COMMUNITY)
        created = await session.groups.create_group("Sub", [], GroupOptions(parent_jid=COMMUNITY_JID))
        client.create_group.assert_called_once_with(
            "Sub", [], linked_parent=GroupLinkedParent(LinkedParentJID=COMMUNITY), group_parent=None
        )
        assert created.group.parent_jid == COMMUNITY_JID

    on_connected(tmp_path, body)


@pytest.mark.parametrize(
    ("options", "kind", "words"),
    [
        (GroupOptions(join_approval=True), ErrorKind.UNSUPPORTED, "with join approval"),
        (GroupOptions(community=True), ErrorKind.UNSUPPORTED, "community without join approval"),
        (
            GroupOptions(community=True, join_approval=True, parent_jid=COMMUNITY_JID),
            ErrorKind.REFUSED,
            "cannot belong",
        ),
    ],
    ids=["group-with-approval", "community-without-approval", "community-in-community"],
)
def test_create_options_neonize_cannot_honour_are_refused_before_creating(
    tmp_path: Path, options: GroupOptions, kind: ErrorKind, words: str
) -> None:
    async def body(session: Any, client: Any) -> None:
        with pytest.raises(NetworkError) as raised:
            await session.groups.create_group("Team", ["12025550101"], options)
        assert raised.value.kind is kind
        assert words in str(raised.value)
        assert library_calls(client) == []

    on_connected(tmp_path, body)


def test_create_with_announcement_and_locked_sets_them_after_the_create(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.create_group.return_value = group_proto()
        created = await session.groups.create_group("Team", [], GroupOptions(announcement=True, locked=True))
        assert library_calls(client) == ["create_group", "set_group_announce", "set_group_locked"]
        client.set_group_announce.assert_called_once_with(GROUP, True)
        client.set_group_locked.assert_called_once_with(GROUP, True)
        assert (created.group.is_announce, created.group.is_locked) == (True, True)

    on_connected(tmp_path, body)


def test_a_setting_failing_after_the_create_names_the_new_group_and_what_was_applied(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.create_group.return_value = group_proto()
        client.set_group_locked.side_effect = SetGroupLockedError("websocket not connected")
        with pytest.raises(NetworkError) as raised:
            await session.groups.create_group("Team", [], GroupOptions(announcement=True, locked=True))
        assert raised.value.kind is ErrorKind.NETWORK
        message = str(raised.value)
        assert f"created as {GROUP_JID}" in message
        assert "locked not set (applied: announcement)" in message
        assert "websocket not connected" in message

    on_connected(tmp_path, body)


def test_a_failed_create_is_mapped_and_changes_nothing_more(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.create_group.side_effect = CreateGroupError("info query returned status 429: rate-overlimit")
        with pytest.raises(NetworkError) as raised:
            await session.groups.create_group("Team", [], GroupOptions(announcement=True))
        assert raised.value.kind is ErrorKind.RATE_LIMITED
        assert library_calls(client) == ["create_group"]

    on_connected(tmp_path, body)


# --- reading --------------------------------------------------------------------------------


def test_group_info_prefers_phone_jids_and_keeps_lids(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        # Given a group listing one person by LID (with the phone) and one by phone (with the LID)
        client.get_group_info.return_value = group_proto(
            person(DEE_LID, admin=True, phone=DEE),
            person(ANA, lid=jid("11112222333", "lid")),
            person(jid("99887766", "lid"), phone=EMPTY),
            parent=COMMUNITY,
            announce=True,
            timer=604800,
        )
        info = await session.groups.group_info(GROUP_JID)
        client.get_group_info.assert_called_once_with(GROUP)
        assert info.participants == (
            GroupMember(jid=ACCOUNT_JID, is_admin=True, is_super_admin=True),
            GroupMember(jid="12025550104@s.whatsapp.net", is_admin=True, lid="207180606656725@lid"),
            GroupMember(jid="12025550101@s.whatsapp.net", lid="11112222333@lid"),
            GroupMember(jid="99887766@lid", lid="99887766@lid"),
        )
        assert (info.name, info.topic, info.owner, info.created_at) == ("Team", "Plans", ACCOUNT_JID, CREATED)
        assert (info.is_announce, info.is_locked, info.ephemeral_duration) == (True, False, 604800)
        assert (info.is_community, info.parent_jid) == (False, COMMUNITY_JID)
        assert (info.join_approval, info.member_add_mode) == (None, None)

    on_connected(tmp_path, body)


def test_joined_groups_converts_every_group(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.get_joined_groups.return_value = [group_proto(), group_proto(group=COMMUNITY, community=True)]
        groups = await session.groups.joined_groups()
        client.get_joined_groups.assert_called_once_with()
        assert [(g.jid, g.is_community) for g in groups] == [(GROUP_JID, False), (COMMUNITY_JID, True)]

    on_connected(tmp_path, body)


def test_created_record_round_trips_through_the_bus(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.create_group.return_value = group_proto(person(ANA))
        created = await session.groups.create_group("Team", ["12025550101"], GroupOptions())
        assert isinstance(created, GroupCreated)
        # The record as the bus carries it (its contract's model) keeps every field
        record = GroupInfo.model_validate(created.group, from_attributes=True)
        again = GroupInfo.model_validate_json(record.model_dump_json())
        assert again == record
        assert again.model_dump(exclude={"participants"}) == {
            name: getattr(created.group, name) for name in GroupInfo.model_fields if name != "participants"
        }
        assert [p.jid for p in again.participants] == [p.jid for p in created.group.participants]

    on_connected(tmp_path, body)
