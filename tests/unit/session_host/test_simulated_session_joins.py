"""Simulated sessions: invite links, joining, join requests, leaving and community links made
by a device through the port, with the network's refusals and the events devices get."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, THIRD, THIRD_JID, fast_network, paired, refusal

from gateway.failures.kinds import ErrorKind
from gateway.groups.invites import code_of_link
from session_host.network.group_types import (
    GroupInvite,
    GroupOptions,
    JoinOutcome,
    MemberOutcome,
    PendingJoinRequest,
    RequestAction,
)
from session_host.network.port import NetworkError
from session_host.network.simulated.group_records import GroupError


def code_of(link: str) -> str:
    code = code_of_link(link)
    assert code is not None, link
    return code


def test_the_admin_device_reads_and_resets_the_invite_link(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with a second device as plain member
        network = fast_network()
        session, _ = await paired(network, tmp_path, "dev-a", PHONE)
        other, other_events = await paired(network, tmp_path, "dev-b", CONTACT)
        group = (await session.groups.create_group("G", [CONTACT], GroupOptions())).group.jid

        # When the admin reads the link, then resets it
        link = await session.groups.group_invite_link(group)
        fresh = await session.groups.group_invite_link(group, reset=True)

        # Then both are invite links, the new one the network's now, and members hear of it
        assert link.startswith("https://chat.whatsapp.com/")
        assert fresh != link
        assert (
            network.groups.record(group)["invite_link"]
            == fresh
            == await session.groups.group_invite_link(group)
        )
        info = await other_events.wait_for("group.info")
        assert info.data["invite_link"] == fresh

        # And a member may not see it; the old link is revoked
        assert await refusal(other.groups.group_invite_link(group)) == "not_group_admin"
        assert await refusal(other.groups.group_invite_link(group, reset=True)) == "not_group_admin"
        network.create_account(THIRD)
        with pytest.raises(GroupError) as revoked:
            network.groups.join(THIRD, link)
        assert revoked.value.code == "invite_link_revoked"
        await session.close()
        await other.close()

    asyncio.run(scenario())


def test_the_device_joins_by_link_and_the_members_hear_of_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a contact's group with a second device as member
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path, "dev-a", PHONE)
        member, member_events = await paired(network, tmp_path, "dev-b", THIRD)
        group = network.groups.create(CONTACT, "Open", [THIRD])["jid"]
        code = code_of(network.groups.record(group)["invite_link"])

        # When the device joins by the link's code
        outcome = await session.groups.join_group(GroupInvite(code=code))

        # Then it is a member at once, and has group.joined by invite; the member is told
        assert outcome == JoinOutcome(group_jid=group, pending_approval=False)
        joined = await recorder.wait_for("group.joined")
        assert (joined.data["group_jid"], joined.data["reason"], joined.data["author"]) == (
            group,
            "invite",
            JID,
        )
        info = await member_events.wait_for("group.info", where=lambda e: e.data["join"] == [JID])
        assert info.data["join_reason"] == "invite"

        # And joining again is already_member
        assert await refusal(session.groups.join_group(GroupInvite(code=code))) == "already_member"
        await session.close()
        await member.close()

    asyncio.run(scenario())


def test_joining_refusals_are_the_network_s_codes(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given two contact groups, the first one's link reset
        network = fast_network()
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        first = network.groups.create(CONTACT, "First", [])["jid"]
        second = network.groups.create(CONTACT, "Second", [])["jid"]
        old = code_of(network.groups.record(first)["invite_link"])
        network.groups.reset_invite(CONTACT, first)
        code = code_of(network.groups.record(first)["invite_link"])

        # When the device joins with the old code, an unknown code, or the code form naming the other group
        # Then each is refused with its code
        assert await refusal(session.groups.join_group(GroupInvite(code=old))) == "invite_link_revoked"
        assert await refusal(session.groups.join_group(GroupInvite(code="nope"))) == "group_not_found"
        mismatched = GroupInvite(code=code, group_jid=second, inviter_jid=CONTACT_JID)
        assert await refusal(session.groups.join_group(mismatched)) == "group_not_found"
        assert await session.groups.joined_groups() == []

        # And the code form naming the right group joins
        right = GroupInvite(code=code, group_jid=first, inviter_jid=CONTACT_JID)
        assert await session.groups.join_group(right) == JoinOutcome(group_jid=first, pending_approval=False)
        await session.close()

    asyncio.run(scenario())


def test_a_rate_limited_join_fails_then_the_next_one_joins(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a contact's group and a rate_limited fault on join_group
        network = fast_network()
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "G", [])["jid"]
        invite = GroupInvite(code=code_of(network.groups.record(group)["invite_link"]))
        network.inject_fault("join_group", "rate_limited")

        # When the device joins twice
        with pytest.raises(NetworkError) as throttled:
            await session.groups.join_group(invite)

        # Then the first is throttled and changes nothing, the second joins
        assert throttled.value.kind is ErrorKind.RATE_LIMITED
        assert JID not in [p["jid"] for p in network.groups.record(group)["participants"]]
        assert (await session.groups.join_group(invite)).group_jid == group
        await session.close()

    asyncio.run(scenario())


def test_with_approval_the_device_waits_until_an_admin_answers(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a contact's group with join approval
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "Closed", [], {"join_approval": True})["jid"]

        # When the device asks to join
        code = code_of(network.groups.record(group)["invite_link"])
        outcome = await session.groups.join_group(GroupInvite(code=code))

        # Then it waits, and is not in the group
        assert outcome == JoinOutcome(group_jid=group, pending_approval=True)
        assert [r["jid"] for r in network.groups.record(group)["pending"]] == [JID]
        assert await refusal(session.groups.group_info(group)) == "group_not_found"

        # When the admin approves, Then the device has the group
        network.groups.answer_requests(CONTACT, group, "approve", [PHONE])
        joined = await recorder.wait_for("group.joined")
        assert (joined.data["group_jid"], joined.data["author"]) == (group, CONTACT_JID)
        await session.close()

    asyncio.run(scenario())


def test_the_admin_device_lists_and_answers_join_requests(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with approval, a second device as member, and two contacts asking
        network = fast_network()
        network.create_account(CONTACT)
        network.create_account(THIRD)
        session, _ = await paired(network, tmp_path, "dev-a", PHONE)
        other, _ = await paired(network, tmp_path, "dev-b", "15550004444")
        group = (
            await session.groups.create_group("G", ["15550004444"], GroupOptions(join_approval=True))
        ).group.jid
        link = await session.groups.group_invite_link(group)
        for phone in (CONTACT, THIRD):
            assert network.groups.join(phone, link)["pending_approval"] is True

        # When the admin device lists the requests
        requests = await session.groups.group_requests(group)

        # Then both wait, oldest first, with the time they asked
        assert [r.jid for r in requests] == [CONTACT_JID, THIRD_JID]
        assert all(isinstance(r, PendingJoinRequest) and r.requested_at > 0 for r in requests)

        # When it approves the contact, rejects the third, and approves someone who never asked
        approved = await session.groups.answer_group_requests(
            group, RequestAction.APPROVE, [CONTACT_JID, JID]
        )
        rejected = await session.groups.answer_group_requests(group, RequestAction.REJECT, [THIRD])

        # Then each has its outcome, and only the contact got in
        assert approved == [
            MemberOutcome(jid=CONTACT_JID, status="ok"),
            MemberOutcome(jid=JID, status="not_found"),
        ]
        assert rejected == [MemberOutcome(jid=THIRD_JID, status="ok")]
        assert await session.groups.group_requests(group) == []
        assert CONTACT_JID in [p.jid for p in (await session.groups.group_info(group)).participants]

        # And a plain member may do neither
        assert await refusal(other.groups.group_requests(group)) == "not_group_admin"
        answer = other.groups.answer_group_requests(group, RequestAction.APPROVE, [THIRD_JID])
        assert await refusal(answer) == "not_group_admin"
        await session.close()
        await other.close()

    asyncio.run(scenario())


def test_the_device_leaves_and_the_others_are_told(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a second device's group with the first device as member
        network = fast_network()
        session, _ = await paired(network, tmp_path, "dev-a", PHONE)
        admin, admin_events = await paired(network, tmp_path, "dev-b", CONTACT)
        group = (await admin.groups.create_group("G", [PHONE], GroupOptions())).group.jid

        # When the first device leaves
        await session.groups.leave_group(group)

        # Then the group is gone for it, and the admin's device hears it left
        assert await session.groups.joined_groups() == []
        info = await admin_events.wait_for("group.info")
        assert (info.data["leave"], info.data["author"]) == ([JID], JID)

        # And leaving again, or a group it never was in, is group_not_found
        assert await refusal(session.groups.leave_group(group)) == "group_not_found"
        await session.close()
        await admin.close()

    asyncio.run(scenario())


def test_the_device_links_and_unlinks_groups_of_its_community(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's community and group, and a contact's group it is a member of
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path)
        community = (await session.groups.create_group("Club", [], GroupOptions(community=True))).group.jid
        group = (await session.groups.create_group("Chat", [], GroupOptions())).group.jid
        theirs = network.groups.create(CONTACT, "Theirs", [PHONE])["jid"]

        # When it links its group into its community
        await session.groups.link_group(community, group)

        # Then the group names its parent, the community its child, and its members are told
        assert (await session.groups.group_info(group)).parent_jid == community
        assert network.groups.record(community)["linked_groups"] == [group]
        linked = await recorder.wait_for("group.info", where=lambda e: e.data["linked_group"] is not None)
        assert (linked.data["group_jid"], linked.data["linked_group"]["group_jid"]) == (community, group)

        # And linking again, into a plain group, or a group it does not administer is refused
        assert await refusal(session.groups.link_group(community, group)) == "already_linked"
        assert await refusal(session.groups.link_group(group, community)) == "not_a_community"
        assert await refusal(session.groups.link_group(community, theirs)) == "not_group_admin"

        # When it unlinks it, Then it is on its own again, and unlinking twice is not_linked
        await session.groups.unlink_group(community, group)
        assert (await session.groups.group_info(group)).parent_jid is None
        assert await refusal(session.groups.unlink_group(community, group)) == "not_linked"
        await session.close()

    asyncio.run(scenario())
