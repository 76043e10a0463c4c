"""The session host's group commands on a real simulated session: the replies the API gets,
the network's refusals and the faults named after the commands, end to end below the bus."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import bus_wire
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, fast_network, paired

from gateway.bus import CommandName, Reply
from gateway.bus.contracts.groups import GroupInfo
from gateway.failures.kinds import ErrorKind
from gateway.groups.invites import code_of_link
from gateway.leases import Lease
from session_host.commands import CommandExecutor
from session_host.device_tenure import OwnedDevice
from session_host.network.simulated import SimulatedNetwork, SimulatedSession
from session_host.ownership import Ownership


class _Ownership:
    def __init__(self, session: SimulatedSession) -> None:
        owned = OwnedDevice("t1", "dev-1", Lease("dev-1", "t1", "host-a", None, 1, "tenure-a"))
        owned.session = cast(Any, session)
        self.devices = {"dev-1": owned}


async def _run(session: SimulatedSession, command_name: CommandName, **args: Any) -> Reply:
    command = bus_wire.command(command_name, args, tenant_id="t1", device_id="dev-1")
    reply = await CommandExecutor(cast(Ownership, _Ownership(session))).execute(command)
    assert isinstance(reply, Reply)
    return bus_wire.on_the_wire(reply)


async def _device(tmp_path: Path) -> tuple[SimulatedNetwork, SimulatedSession]:
    network = fast_network()
    network.create_account(CONTACT)
    session, _ = await paired(network, tmp_path)
    return network, session


def test_commands_create_read_and_change_a_group_on_the_simulated_network(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected simulated device
        network, session = await _device(tmp_path)

        # When it creates a group with a contact, then renames it
        created = await _run(session, CommandName.CREATE_GROUP, name="Trip", participants=[CONTACT_JID])
        group_jid = created.result["group"]["jid"]
        updated = await _run(
            session, CommandName.UPDATE_GROUP, group_jid=group_jid, settings={"name": "Trip 2"}
        )

        # Then the replies carry the network's group, as the port's records in JSON
        assert created.ok, created
        assert created.result["participants"] == [
            {"jid": CONTACT_JID, "status": "ok", "is_admin": False, "is_super_admin": False}
        ]
        group = GroupInfo.model_validate(updated.result["group"])
        admins = [p.jid for p in group.participants if p.is_admin]
        assert (group.name, group.owner, admins) == ("Trip 2", JID, [JID])
        listed = await _run(session, CommandName.LIST_GROUPS)
        assert [g["jid"] for g in listed.result["groups"]] == [group_jid]
        assert network.groups.record(group_jid)["name"] == "Trip 2"
        await session.close()

    asyncio.run(scenario())


def test_a_member_device_is_refused_and_the_network_s_refusals_come_back_by_code(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a contact's group where the device's account is a plain member, its link reset once
        network, session = await _device(tmp_path)
        group_jid = network.groups.create(CONTACT, "Theirs", [PHONE])["jid"]
        old_link = network.groups.record(group_jid)["invite_link"]
        network.groups.reset_invite(CONTACT, group_jid)

        # When it renames the group, leaves it, and joins again with the old link's code
        renamed = await _run(
            session, CommandName.UPDATE_GROUP, group_jid=group_jid, settings={"name": "Mine"}
        )
        left = await _run(session, CommandName.LEAVE_GROUP, group_jid=group_jid)
        rejoined = await _run(session, CommandName.JOIN_GROUP, code=code_of_link(old_link))

        # Then the gateway's admin rule refuses the rename, the leave works, the old code is revoked
        assert (renamed.ok, renamed.error_kind, renamed.error_code) == (
            False,
            ErrorKind.REFUSED,
            "not_group_admin",
        )
        assert left.ok, left
        assert (rejoined.ok, rejoined.error_kind, rejoined.error_code) == (
            False,
            ErrorKind.REFUSED,
            "invite_link_revoked",
        )
        assert network.groups.record(group_jid)["name"] == "Theirs"
        await session.close()

    asyncio.run(scenario())


def test_a_rate_limited_fault_on_join_group_is_the_reply_s_error_kind(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a contact's group and a rate_limited fault on join_group
        network, session = await _device(tmp_path)
        group_jid = network.groups.create(CONTACT, "Open", [])["jid"]
        code = code_of_link(network.groups.record(group_jid)["invite_link"])
        network.inject_fault("join_group", "rate_limited", device_id="dev-1")

        # When the device joins twice
        throttled = await _run(session, CommandName.JOIN_GROUP, code=code)
        joined = await _run(session, CommandName.JOIN_GROUP, code=code, group_jid=group_jid)

        # Then the first reply is rate_limited, the second joins
        assert (throttled.ok, throttled.error_kind) == (False, ErrorKind.RATE_LIMITED)
        assert joined.result == {"group_jid": group_jid, "pending_approval": False}
        await session.close()

    asyncio.run(scenario())
