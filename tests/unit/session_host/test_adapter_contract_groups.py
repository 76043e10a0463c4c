"""One contract, two adapters: the same group scenarios on the simulated session and on the
neonize session (``adapter_backends``), so the two cannot drift. Where an adapter cannot do
something, the scenario checks that it says so (``UNSUPPORTED``) and changed nothing."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from adapter_backends import DEVICE_JID, Backend, running
from fakes_neonize import run

from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import (
    GroupInvite,
    GroupOptions,
    GroupSettings,
    JoinOutcome,
    MemberAddMode,
    ParticipantAction,
    RequestAction,
)
from session_host.network.port import NetworkError

ADAPTERS = ["simulated", "neonize"]
BOB, CAI, DEE, GHOST = "15550000002", "15550000003", "15550000004", "15550000099"
GHOST_JID = f"{GHOST}@s.whatsapp.net"
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 16
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
UNKNOWN_GROUP = "120363999999999999@g.us"

Scenario = Callable[[Backend], Awaitable[None]]


def on(adapter: str, tmp_path: Path, scenario: Scenario) -> None:
    async def main() -> None:
        async with running(adapter, tmp_path) as backend:
            await scenario(backend)

    run(main())


async def refused(code: str, call: Awaitable[Any]) -> NetworkError:
    with pytest.raises(NetworkError) as caught:
        await call
    assert (caught.value.kind, caught.value.code) == (ErrorKind.REFUSED, code), caught.value
    return caught.value


async def unsupported(call: Awaitable[Any]) -> None:
    with pytest.raises(NetworkError) as caught:
        await call
    assert caught.value.kind is ErrorKind.UNSUPPORTED, caught.value


def roles(info: Any) -> dict[str, tuple[bool, bool]]:
    return {p.jid: (p.is_admin, p.is_super_admin) for p in info.participants}


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_creating_a_group_makes_the_device_its_super_admin(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given two people on the network and one who is not
        bob, _ = net.person(BOB)
        cai, _ = net.person(CAI)
        # When the device creates a group with all three
        created = await net.session.groups.create_group(
            "Team", [bob, cai, GHOST_JID], GroupOptions(locked=True)
        )
        # Then the two are in, the third is not_found, the device is super admin
        assert [(r.jid, r.status) for r in created.participants] == [
            (bob, "ok"),
            (cai, "ok"),
            (GHOST_JID, "not_found"),
        ]
        info = await net.session.groups.group_info(created.group.jid)
        assert roles(info) == {DEVICE_JID: (True, True), bob: (False, False), cai: (False, False)}
        assert (info.name, info.owner, info.is_locked, info.is_announce) == ("Team", DEVICE_JID, True, False)
        assert info.jid in [group.jid for group in await net.session.groups.joined_groups()]
        assert net.record(info.jid)["is_locked"] is True

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_member_changes_answer_each_person(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        cai, _ = net.person(CAI)
        dee, dee_lid = net.person(DEE)
        group = (await net.session.groups.create_group("Team", [bob], GroupOptions())).group.jid
        change = net.session.groups.change_participants
        # Adding: a new person (by LID too), someone already in, someone not on the network
        added = await change(group, ParticipantAction.ADD, [cai, dee_lid, bob, GHOST_JID])
        assert [(r.jid, r.status) for r in added] == [
            (cai, "ok"),
            (dee, "ok"),
            (bob, "already_member"),
            (GHOST_JID, "not_found"),
        ]
        # Promoting and demoting come back with the new flags
        promoted = await change(group, ParticipantAction.PROMOTE, [bob])
        assert [(r.jid, r.status, r.is_admin) for r in promoted] == [(bob, "ok", True)]
        demoted = await change(group, ParticipantAction.DEMOTE, [bob])
        assert [(r.jid, r.status, r.is_admin) for r in demoted] == [(bob, "ok", False)]
        # Removing twice: the second time the person is not a member
        assert [r.status for r in await change(group, ParticipantAction.REMOVE, [cai])] == ["ok"]
        assert [r.status for r in await change(group, ParticipantAction.REMOVE, [cai])] == ["not_member"]
        assert set(roles(await net.session.groups.group_info(group))) == {DEVICE_JID, bob, dee}

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_settings_change_or_are_declared_unsupported(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        group = (await net.session.groups.create_group("Team", [], GroupOptions())).group.jid
        # When the device renames it, describes it, and makes it announce-only and locked
        await net.session.groups.update_group(
            group, GroupSettings(name="Team 2", topic="plans", announce=True, locked=True)
        )
        # Then the network shows every change
        info = await net.session.groups.group_info(group)
        assert (info.name, info.topic, info.is_announce, info.is_locked) == ("Team 2", "plans", True, True)
        # Join approval and member-add mode: applied, or UNSUPPORTED with nothing changed
        for key, settings in (
            ("join_approval", GroupSettings(join_approval=True, name="Team 3")),
            ("member_add_mode", GroupSettings(member_add_mode=MemberAddMode.ALL, name="Team 3")),
        ):
            if f"update_group.{key}" in net.unsupported:
                await unsupported(net.session.groups.update_group(group, settings))
                assert net.record(group)["name"] == "Team 2"
            else:
                await net.session.groups.update_group(group, settings)
                assert net.record(group)["name"] == "Team 3"
        if "update_group.join_approval" not in net.unsupported:
            assert (net.record(group)["join_approval"], net.record(group)["member_add_mode"]) == (True, "all")

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_timer_and_picture_take_only_what_the_network_takes(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        group = (await net.session.groups.create_group("Team", [], GroupOptions())).group.jid
        await net.session.groups.set_group_ephemeral(group, 604800)
        assert (await net.session.groups.group_info(group)).ephemeral_duration == 604800
        await refused("invalid_duration", net.session.groups.set_group_ephemeral(group, 5))
        picture_id = await net.session.groups.set_group_picture(group, JPEG)
        assert isinstance(picture_id, str)
        assert picture_id
        await refused("invalid_image", net.session.groups.set_group_picture(group, PNG))
        assert base64.b64encode(JPEG)  # the API sends base64; the port takes the bytes

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_invite_links_join_reset_and_revoke(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        group = net.create_group_as(bob, "Bob's", [])
        link = net.record(group)["invite_link"]
        # The device joins by the link's code: a member at once (no approval)
        code = link.rsplit("/", 1)[-1]
        assert await net.session.groups.join_group(GroupInvite(code)) == JoinOutcome(
            group_jid=group, pending_approval=False
        )
        assert DEVICE_JID in roles(await net.session.groups.group_info(group))
        await refused("already_member", net.session.groups.join_group(GroupInvite(code)))
        # Its own group: reading and resetting the link; the old code is revoked
        own = (await net.session.groups.create_group("Mine", [], GroupOptions())).group.jid
        old = await net.session.groups.group_invite_link(own)
        new = await net.session.groups.group_invite_link(own, reset=True)
        assert old != new
        assert new.startswith("https://chat.whatsapp.com/")
        await net.session.groups.leave_group(group)
        await refused(
            "invite_link_revoked", net.session.groups.join_group(GroupInvite(old.rsplit("/", 1)[-1]))
        )
        await refused("group_not_found", net.session.groups.join_group(GroupInvite("NoSuchCode123")))

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_joining_where_approval_is_on_waits_for_an_admin(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        group = net.create_group_as(bob, "Closed", [], join_approval=True)
        code = net.record(group)["invite_link"].rsplit("/", 1)[-1]
        # When the device asks to join, Then it waits, and the group is not yet its to read
        outcome = await net.session.groups.join_group(GroupInvite(code))
        assert outcome.pending_approval is True
        await refused("group_not_found", net.session.groups.group_info(group))
        assert [r["jid"] for r in net.record(group)["pending"]] == [DEVICE_JID]
        # When an admin approves, Then the device is a member
        net.answer_as(bob, group, "approve", [DEVICE_JID])
        assert DEVICE_JID in roles(await net.session.groups.group_info(group))

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_admin_device_lists_and_answers_join_requests(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        cai, _ = net.person(CAI)
        group = net.create_group_as(bob, "Closed", [DEVICE_JID], join_approval=True)
        net.change_as(bob, group, "promote", [DEVICE_JID])
        net.join_as(cai, net.record(group)["invite_link"])
        requests = await net.session.groups.group_requests(group)
        assert [r.jid for r in requests] == [cai]
        assert requests[0].requested_at > 0
        answer = net.session.groups.answer_group_requests(group, RequestAction.APPROVE, [cai, GHOST_JID])
        if "answer_group_requests" in net.unsupported:
            await unsupported(answer)
            assert [r["jid"] for r in net.record(group)["pending"]] == [cai]
            return
        assert [(r.jid, r.status) for r in await answer] == [(cai, "ok"), (GHOST_JID, "not_found")]
        assert cai in roles(await net.session.groups.group_info(group))

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_leaving_a_group(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        group = net.create_group_as(bob, "Bob's", [DEVICE_JID])
        await net.session.groups.leave_group(group)
        await refused("group_not_found", net.session.groups.group_info(group))
        assert group not in [g.jid for g in await net.session.groups.joined_groups()]
        assert DEVICE_JID not in {p["jid"] for p in net.record(group)["participants"]}
        await refused("group_not_found", net.session.groups.group_info(UNKNOWN_GROUP))

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_communities_hold_linked_groups(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a community (neonize creates communities with join approval only) and a group
        options = GroupOptions(community=True, join_approval=True)
        community = (await net.session.groups.create_group("Town", [], options)).group
        assert community.is_community is True
        child = (await net.session.groups.create_group("Street", [], GroupOptions())).group.jid
        # When the group is linked into it, Then the group names its community
        await net.session.groups.link_group(community.jid, child)
        assert (await net.session.groups.group_info(child)).parent_jid == community.jid
        assert net.record(community.jid)["linked_groups"] == [child]
        # A group created inside the community is linked from the start
        inside = await net.session.groups.create_group("Square", [], GroupOptions(parent_jid=community.jid))
        assert (await net.session.groups.group_info(inside.group.jid)).parent_jid == community.jid
        # When it is unlinked, Then it stands alone again
        await net.session.groups.unlink_group(community.jid, child)
        assert (await net.session.groups.group_info(child)).parent_jid is None

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_group_operations_need_a_connected_session(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        group = (await net.session.groups.create_group("Team", [], GroupOptions())).group.jid
        await net.session.disconnect()
        calls = [
            net.session.groups.joined_groups(),
            net.session.groups.group_info(group),
            net.session.groups.change_participants(group, ParticipantAction.ADD, [GHOST_JID]),
            net.session.groups.update_group(group, GroupSettings(name="x")),
            net.session.groups.group_invite_link(group),
            net.session.groups.leave_group(group),
        ]
        for call in calls:
            with pytest.raises(NetworkError) as caught:
                await call
            assert caught.value.kind is ErrorKind.NOT_CONNECTED
        assert net.record(group)["name"] == "Team"

    on(adapter, tmp_path, scenario)
