"""Simulated sessions: the port's group operations (create, read, members, settings, picture,
timer) made by a device, with the network's refusals, faults, and the events devices get."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from fakes_simulated import (
    CONTACT,
    CONTACT_JID,
    JID,
    PHONE,
    THIRD,
    THIRD_JID,
    fast_network,
    open_session,
    paired,
    refusal,
)

from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import (
    GroupInfo,
    GroupInvite,
    GroupMember,
    GroupOptions,
    GroupSettings,
    MemberAddMode,
    MemberOutcome,
    ParticipantAction,
    RequestAction,
)
from session_host.network.port import NetworkError
from session_host.network.simulated import SimulatedSession
from session_host.network.simulated.model import GROUP_OPERATIONS

GHOST_JID = "19990000000@s.whatsapp.net"
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 16
SOME_GROUP = "120363000000000001@g.us"

Call = Callable[[SimulatedSession], Awaitable[object]]
CALLS: dict[str, Call] = {
    "create_group": lambda s: s.groups.create_group("G", [], GroupOptions()),
    "list_groups": lambda s: s.groups.joined_groups(),
    "group_info": lambda s: s.groups.group_info(SOME_GROUP),
    "group_participants": lambda s: s.groups.change_participants(
        SOME_GROUP, ParticipantAction.ADD, [CONTACT_JID]
    ),
    "update_group": lambda s: s.groups.update_group(SOME_GROUP, GroupSettings(name="N")),
    "group_picture": lambda s: s.groups.set_group_picture(SOME_GROUP, JPEG),
    "group_ephemeral": lambda s: s.groups.set_group_ephemeral(SOME_GROUP, 86400),
    "group_invite": lambda s: s.groups.group_invite_link(SOME_GROUP),
    "join_group": lambda s: s.groups.join_group(GroupInvite(code="abc")),
    "leave_group": lambda s: s.groups.leave_group(SOME_GROUP),
    "link_group": lambda s: s.groups.link_group(SOME_GROUP, SOME_GROUP),
    "unlink_group": lambda s: s.groups.unlink_group(SOME_GROUP, SOME_GROUP),
    "group_requests": lambda s: s.groups.group_requests(SOME_GROUP),
    "answer_group_requests": lambda s: s.groups.answer_group_requests(
        SOME_GROUP, RequestAction.APPROVE, [CONTACT_JID]
    ),
}
"""Every group operation of the port, by its fault name (the bus command's)."""


def test_every_group_operation_has_a_fault_name() -> None:
    assert set(CALLS) == GROUP_OPERATIONS


@pytest.mark.parametrize("operation", sorted(CALLS))
def test_a_group_operation_needs_a_connected_session_and_uses_no_fault_without(
    tmp_path: Path, operation: str
) -> None:
    async def scenario() -> None:
        # Given a session that is pairing, and a fault waiting for the operation
        network = fast_network()
        session, _ = open_session(network, tmp_path)
        await session.connect()
        network.inject_fault(operation, "network")

        # When it tries the operation, Then it is not connected and the fault still waits
        with pytest.raises(NetworkError) as failed:
            await CALLS[operation](session)
        assert failed.value.kind is ErrorKind.NOT_CONNECTED
        assert [f["operation"] for f in network.pending_faults()] == [operation]
        await session.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("operation", sorted(CALLS))
def test_a_fault_named_after_the_command_fails_the_group_operation(tmp_path: Path, operation: str) -> None:
    async def scenario() -> None:
        # Given a connected device and a rate_limited fault on the operation
        network = fast_network()
        session, _ = await paired(network, tmp_path)
        network.inject_fault(operation, "rate_limited", device_id="dev-1")

        # When it tries the operation, Then it fails that way, and the network did nothing
        with pytest.raises(NetworkError) as failed:
            await CALLS[operation](session)
        assert failed.value.kind is ErrorKind.RATE_LIMITED
        assert network.pending_faults() == []
        assert await session.groups.joined_groups() == []
        await session.close()

    asyncio.run(scenario())


def test_the_device_creates_a_group_and_every_member_s_devices_get_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given two devices (PHONE, THIRD) and a contact on the network
        network = fast_network()
        lids = {a["jid"]: a["lid"] for a in (network.create_account(p) for p in (PHONE, CONTACT, THIRD))}
        session, recorder = await paired(network, tmp_path, "dev-a", PHONE)
        other, other_events = await paired(network, tmp_path, "dev-b", THIRD)

        # When the first device creates a locked announce group with them and someone off the network
        created = await session.groups.create_group(
            "Trip", [CONTACT, THIRD_JID, GHOST_JID], GroupOptions(announcement=True, locked=True)
        )

        # Then the group is the network's, the device its super admin, each person's outcome told
        group = created.group
        assert group == GroupInfo(
            jid=group.jid,
            name="Trip",
            topic="",
            owner=JID,
            created_at=group.created_at,
            is_announce=True,
            is_locked=True,
            join_approval=False,
            member_add_mode=MemberAddMode.ADMIN,
            ephemeral_duration=0,
            is_community=False,
            parent_jid=None,
            participants=(
                GroupMember(jid=JID, is_admin=True, is_super_admin=True, lid=lids[JID]),
                GroupMember(jid=CONTACT_JID, lid=lids[CONTACT_JID]),
                GroupMember(jid=THIRD_JID, lid=lids[THIRD_JID]),
            ),
        )
        assert group.jid.endswith("@g.us")
        assert created.participants == (
            MemberOutcome(jid=CONTACT_JID, status="ok"),
            MemberOutcome(jid=THIRD_JID, status="ok"),
            MemberOutcome(jid=GHOST_JID, status="not_found"),
        )
        assert network.groups.record(group.jid)["name"] == "Trip"

        # And both devices get group.joined, the creator's own too, with the device's account as author
        for events in (recorder, other_events):
            joined = await events.wait_for("group.joined")
            assert (joined.data["group_jid"], joined.data["author"]) == (group.jid, JID)
            assert (joined.data["announce"], joined.data["locked"]) == (True, True)
        assert recorder.named("group.info") == []
        await session.close()
        await other.close()

    asyncio.run(scenario())


def test_creating_refusals_are_the_network_s_codes(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and a contact's community and group
        network = fast_network()
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        community = network.groups.create(CONTACT, "Neighbours", [PHONE], {"community": True})["jid"]
        group = network.groups.create(CONTACT, "Street", [PHONE])["jid"]

        # When it creates with a bad name, a bad participant, or into communities it may not use
        # Then each is refused with its code, and nothing was created
        assert await refusal(session.groups.create_group("", [], GroupOptions())) == "invalid_request"
        assert (
            await refusal(session.groups.create_group("G", ["bob"], GroupOptions())) == "invalid_participant"
        )
        assert await refusal(session.groups.create_group("G", [], GroupOptions(parent_jid=community))) == (
            "not_group_admin"
        )
        assert await refusal(session.groups.create_group("G", [], GroupOptions(parent_jid=group))) == (
            "not_a_community"
        )
        assert await refusal(session.groups.create_group("G", [], GroupOptions(parent_jid=SOME_GROUP))) == (
            "group_not_found"
        )
        assert [g.jid for g in await session.groups.joined_groups()] == [community, group]
        await session.close()

    asyncio.run(scenario())


def test_the_device_creates_a_community_and_a_group_inside_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device
        network = fast_network()
        session, _ = await paired(network, tmp_path)

        # When it creates a community, then a group with the community as parent
        community = (await session.groups.create_group("Club", [], GroupOptions(community=True))).group
        child = (
            await session.groups.create_group("Club chat", [], GroupOptions(parent_jid=community.jid))
        ).group

        # Then the community is one, and the group is linked into it
        assert (community.is_community, community.parent_jid) == (True, None)
        assert (child.is_community, child.parent_jid) == (False, community.jid)
        assert network.groups.record(community.jid)["linked_groups"] == [child.jid]
        await session.close()

    asyncio.run(scenario())


def test_the_device_reads_the_groups_its_account_is_in(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device in a group it created and one a contact added it to, and a group it is not in
        network = fast_network()
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        own = (await session.groups.create_group("Own", [CONTACT], GroupOptions())).group.jid
        theirs = network.groups.create(CONTACT, "Theirs", [PHONE], {"join_approval": True})["jid"]
        elsewhere = network.groups.create(CONTACT, "Elsewhere", [])["jid"]

        # When it lists its groups and reads each
        listed = await session.groups.joined_groups()
        read = await session.groups.group_info(theirs)

        # Then it sees exactly its own two, with their settings and people
        assert [g.jid for g in listed] == [own, theirs]
        assert listed[1] == read
        assert (read.owner, read.join_approval) == (CONTACT_JID, True)
        assert read.is_admin(CONTACT_JID)
        assert not read.is_admin(JID)

        # And a group it is not in, or none, is group_not_found; a malformed JID invalid_group_jid
        assert await refusal(session.groups.group_info(elsewhere)) == "group_not_found"
        assert await refusal(session.groups.group_info(SOME_GROUP)) == "group_not_found"
        assert await refusal(session.groups.group_info("123@g.us.example")) == "invalid_group_jid"
        await session.close()

    asyncio.run(scenario())


def test_the_device_changes_members_and_their_devices_hear_of_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with a contact, and a second device not yet in it
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path, "dev-a", PHONE)
        other, other_events = await paired(network, tmp_path, "dev-b", THIRD)
        group = (await session.groups.create_group("G", [CONTACT], GroupOptions())).group.jid

        # When it adds the second device's account and a ghost, then promotes the contact
        added = await session.groups.change_participants(group, ParticipantAction.ADD, [THIRD, GHOST_JID])
        promoted = await session.groups.change_participants(group, ParticipantAction.PROMOTE, [CONTACT_JID])

        # Then each person has their outcome and flags
        assert added == [
            MemberOutcome(jid=THIRD_JID, status="ok"),
            MemberOutcome(jid=GHOST_JID, status="not_found"),
        ]
        assert promoted == [MemberOutcome(jid=CONTACT_JID, status="ok", is_admin=True)]

        # And the added account's device gets group.joined, the device itself group.info for each
        joined = await other_events.wait_for("group.joined")
        assert (joined.data["group_jid"], joined.data["author"]) == (group, JID)
        info = [(await recorder.wait_for("group.info", n)).data for n in (1, 2)]
        assert (info[0]["join"], info[1]["promote"]) == ([THIRD_JID], [CONTACT_JID])

        # When it demotes the contact and removes the other account
        await session.groups.change_participants(group, ParticipantAction.DEMOTE, [CONTACT_JID])
        removed = await session.groups.change_participants(group, ParticipantAction.REMOVE, [THIRD_JID, JID])

        # Then the removed device is told it left, and nobody removes itself
        assert removed == [
            MemberOutcome(jid=THIRD_JID, status="ok"),
            MemberOutcome(jid=JID, status="not_allowed", is_admin=True, is_super_admin=True),
        ]
        left = await other_events.wait_for("group.info", where=lambda e: e.data["leave"] == [THIRD_JID])
        assert left.data["author"] == JID
        assert [p.jid for p in (await session.groups.group_info(group)).participants] == [JID, CONTACT_JID]
        await session.close()
        await other.close()

    asyncio.run(scenario())


def test_members_change_members_only_as_the_network_allows(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a contact's group where the device's account is a plain member
        network = fast_network()
        network.create_account(CONTACT)
        network.create_account(THIRD)
        session, _ = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "G", [PHONE])["jid"]

        # When it adds someone, Then only admins may
        add = session.groups.change_participants(group, ParticipantAction.ADD, [THIRD_JID])
        assert await refusal(add) == "not_group_admin"
        unknown = session.groups.change_participants(group, "explode", [THIRD_JID])  # type: ignore[arg-type]
        assert await refusal(unknown) == "invalid_request"

        # When the admin lets every member add, Then it may add, still not remove
        network.groups.update(CONTACT, group, {"member_add_mode": "all"})
        assert await session.groups.change_participants(group, ParticipantAction.ADD, [THIRD_JID]) == [
            MemberOutcome(jid=THIRD_JID, status="ok")
        ]
        remove = session.groups.change_participants(group, ParticipantAction.REMOVE, [THIRD_JID])
        assert await refusal(remove) == "not_group_admin"
        await session.close()

    asyncio.run(scenario())


def test_the_device_changes_settings_under_the_network_s_rules(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with a second device as member
        network = fast_network()
        session, _ = await paired(network, tmp_path, "dev-a", PHONE)
        other, other_events = await paired(network, tmp_path, "dev-b", CONTACT)
        group = (await session.groups.create_group("G", [CONTACT], GroupOptions())).group.jid

        # When the admin device renames it, sets the topic, locks it and lets members add
        settings = GroupSettings(name="G2", topic="plans", locked=True, member_add_mode=MemberAddMode.ALL)
        await session.groups.update_group(group, settings)

        # Then the group has them, and the member's device is told what it sees
        read = await session.groups.group_info(group)
        assert (read.name, read.topic, read.is_locked, read.member_add_mode) == (
            "G2",
            "plans",
            True,
            MemberAddMode.ALL,
        )
        info = await other_events.wait_for("group.info")
        assert (info.data["name"], info.data["topic"], info.data["locked"]) == ("G2", "plans", True)
        assert network.groups.record(group)["member_add_mode"] == "all"

        # And the member may not change it now it is locked, nor settings ever; nothing is invalid
        assert (
            await refusal(other.groups.update_group(group, GroupSettings(name="Mine"))) == "not_group_admin"
        )
        assert (
            await refusal(other.groups.update_group(group, GroupSettings(announce=True))) == "not_group_admin"
        )
        assert await refusal(session.groups.update_group(group, GroupSettings())) == "invalid_request"
        assert (
            await refusal(session.groups.update_group(group, GroupSettings(name="x" * 101)))
            == "invalid_request"
        )

        # When the admin unlocks it, Then the member may rename it
        await session.groups.update_group(group, GroupSettings(locked=False))
        await other.groups.update_group(group, GroupSettings(name="Ours"))
        assert (await session.groups.group_info(group)).name == "Ours"
        await session.close()
        await other.close()

    asyncio.run(scenario())


def test_the_device_sets_the_picture_and_the_timer(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with a second device as member
        network = fast_network()
        session, _ = await paired(network, tmp_path, "dev-a", PHONE)
        other, other_events = await paired(network, tmp_path, "dev-b", CONTACT)
        group = (await session.groups.create_group("G", [CONTACT], GroupOptions(locked=True))).group.jid

        # When it sets a JPEG picture and a 7-day timer
        picture_id = await session.groups.set_group_picture(group, JPEG)
        await session.groups.set_group_ephemeral(group, 604800)

        # Then the network has both, and members are told of each
        assert network.groups.record(group)["picture_id"] == picture_id
        assert (await session.groups.group_info(group)).ephemeral_duration == 604800
        pictured, timed = [(await other_events.wait_for("group.info", n)).data for n in (1, 2)]
        assert pictured["picture"] == {"picture_id": picture_id, "removed": False}
        assert (pictured["author"], timed["ephemeral_seconds"]) == (JID, 604800)

        # And only a JPEG, one of the four timers, and (the group locked) an admin will do
        assert await refusal(session.groups.set_group_picture(group, b"\x89PNG....")) == "invalid_image"
        assert await refusal(session.groups.set_group_ephemeral(group, 3600)) == "invalid_duration"
        assert await refusal(other.groups.set_group_ephemeral(group, 0)) == "not_group_admin"
        assert await refusal(other.groups.set_group_picture(group, JPEG)) == "not_group_admin"
        assert await refusal(session.groups.set_group_ephemeral(SOME_GROUP, 0)) == "group_not_found"
        await session.close()
        await other.close()

    asyncio.run(scenario())
