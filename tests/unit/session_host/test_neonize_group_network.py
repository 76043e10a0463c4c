"""The neonize adapter on the scripted network: neonize's real signatures in front, the
simulated network's group rules behind (``fakes_neonize_network``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes_groups import BOB, CAI, GHOST
from fakes_neonize import ACCOUNT_JID, connected, patched_client, run
from fakes_neonize_network import ScriptedNetwork

from session_host.network.group_types import (
    GroupInvite,
    GroupMember,
    GroupOptions,
    GroupSettings,
    JoinOutcome,
    MemberOutcome,
    ParticipantAction,
)
from session_host.network.port import NetworkError
from session_host.network.simulated.group_records import Role
from session_host.network.simulated.groups import Groups


def test_create_read_and_promote_through_the_scripted_network(tmp_path: Path, groups: Groups) -> None:
    network = ScriptedNetwork(groups)

    async def scenario() -> None:
        with patched_client(network):
            # Given a connected device on a network where GHOST does not exist
            session, _ = await connected(tmp_path, network)
            # When it creates an announcement group with BOB, CAI and GHOST
            created = await session.groups.create_group(
                "Team", [BOB, CAI, GHOST], GroupOptions(announcement=True)
            )
            group_jid = created.group.jid
            # Then the network made it, the device its super admin, and GHOST was left out
            assert created.participants == (
                MemberOutcome(jid=BOB, status="ok"),
                MemberOutcome(jid=CAI, status="ok"),
                MemberOutcome(jid=GHOST, status="not_found"),
            )
            assert groups.get(group_jid).is_announce is True
            # When it reads the group back
            info = await session.groups.group_info(group_jid)
            assert info.owner == ACCOUNT_JID
            assert info.participants == (
                GroupMember(jid=ACCOUNT_JID, is_admin=True, is_super_admin=True),
                GroupMember(jid=BOB),
                GroupMember(jid=CAI),
            )
            assert (info.is_announce, info.join_approval, info.member_add_mode) == (True, None, None)
            # When it promotes BOB, and sets the disappearing timer
            promoted = await session.groups.change_participants(group_jid, ParticipantAction.PROMOTE, [BOB])
            await session.groups.set_group_ephemeral(group_jid, 86400)
            # Then the network's rules applied both, the timer in whole seconds
            assert promoted == [MemberOutcome(jid=BOB, status="ok", is_admin=True)]
            assert groups.get(group_jid).participants[BOB] is Role.ADMIN
            assert groups.get(group_jid).ephemeral_duration == 86400
            await session.close()

    run(scenario())


def test_the_networks_refusals_arrive_as_the_same_codes(tmp_path: Path, groups: Groups) -> None:
    network = ScriptedNetwork(groups)

    async def scenario() -> None:
        with patched_client(network):
            session, _ = await connected(tmp_path, network)
            # Given BOB's locked group with the device as a plain member, and BOB's group
            # that approves who joins, and a reset invite link
            locked, _ = groups.create(BOB, "Locked", [ACCOUNT_JID], locked=True)
            approving, _ = groups.create(BOB, "Approving", [], join_approval=True)
            old_code = approving.invite_code
            groups.reset_invite(approving.jid, BOB)
            # Then the network's refusals keep their codes through whatsmeow's messages
            with pytest.raises(NetworkError) as not_admin:
                await session.groups.update_group(locked.jid, GroupSettings(name="Mine"))
            with pytest.raises(NetworkError) as not_in:
                await session.groups.group_info(approving.jid)
            with pytest.raises(NetworkError) as revoked:
                await session.groups.join_group(GroupInvite(code=old_code))
            with pytest.raises(NetworkError) as already:
                await session.groups.join_group(GroupInvite(code=locked.invite_code))
            assert [e.value.code for e in (not_admin, not_in, revoked, already)] == [
                "not_group_admin",
                "group_not_found",
                "invite_link_revoked",
                "already_member",
            ]
            # And joining the approving group by its link waits for BOB
            pending = await session.groups.join_group(GroupInvite(code=groups.get(approving.jid).invite_code))
            assert pending == JoinOutcome(group_jid=approving.jid, pending_approval=True)
            assert [r["jid"] for r in groups.requests(approving.jid, BOB)] == [ACCOUNT_JID]
            await session.close()

    run(scenario())
