"""The session host's group commands: the gateway's admin rule checked against the network's
participant list, arguments checked before the network is touched, refusals passed on by code."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import bus_wire
import pytest

from gateway.bus import CommandName, Reply
from gateway.failures.kinds import ErrorKind
from gateway.leases import Lease
from session_host.commands import CommandExecutor
from session_host.device_tenure import OwnedDevice
from session_host.network.group_types import (
    GroupCreated,
    GroupInfo,
    GroupMember,
    GroupSettings,
    JoinOutcome,
    MemberOutcome,
    ParticipantAction,
)
from session_host.network.port import NetworkError, SessionState
from session_host.ownership import Ownership

DEVICE = "12025550100@s.whatsapp.net"
OTHER = "12025550101@s.whatsapp.net"
GROUP = "120363000000000001@g.us"


def _group(admin: bool) -> GroupInfo:
    return GroupInfo(
        jid=GROUP,
        name="team",
        topic="",
        owner=OTHER,
        created_at=1.0,
        is_announce=False,
        is_locked=False,
        join_approval=False,
        member_add_mode=None,
        ephemeral_duration=0,
        is_community=False,
        parent_jid=None,
        participants=(
            GroupMember(jid=OTHER, is_admin=True, is_super_admin=True),
            GroupMember(jid=DEVICE, is_admin=admin, is_super_admin=False, lid="77@lid"),
        ),
    )


class _Session:
    """A connected session whose network answers with one group; records what it was asked
    (it is its own ``groups`` family)."""

    def __init__(self, *, admin: bool, refusal: str | None = None) -> None:
        self.groups = self
        self.device_id = "d1"
        self.state = SessionState.CONNECTED
        self.jid: str | None = DEVICE
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self._admin = admin
        self._refusal = refusal
        self.infos: dict[str, GroupInfo] = {}

    async def group_info(self, group_jid: str) -> GroupInfo:
        self.calls.append(("group_info", (group_jid,)))
        return self.infos.get(group_jid) or _group(self._admin)

    def __getattr__(self, name: str) -> Any:
        async def operation(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args))
            if self._refusal:
                raise NetworkError.refused(self._refusal, f"the network refused {name}")
            return _ANSWERS[name](*args, **kwargs)

        return operation


_OLD_LINK, _NEW_LINK = "https://chat.whatsapp.com/old", "https://chat.whatsapp.com/new"
_ANSWERS: dict[str, Any] = {
    "change_participants": lambda *args: [MemberOutcome(jid=p, status="ok", is_admin=True) for p in args[2]],
    "update_group": lambda *_: None,
    "create_group": lambda *_: GroupCreated(group=_group(True), participants=()),
    "join_group": lambda *_: JoinOutcome(group_jid=GROUP, pending_approval=True),
    "group_invite_link": lambda *_, reset=False: _NEW_LINK if reset else _OLD_LINK,
    "set_group_ephemeral": lambda *_: None,
    "link_group": lambda *_: None,
}


class _Ownership:
    def __init__(self, session: _Session) -> None:
        owned = OwnedDevice("t1", "d1", Lease("d1", "t1", "host-a", None, 1, "tenure-a"))
        owned.session = cast(Any, session)
        self.devices = {"d1": owned}


def _run(session: _Session, command_name: CommandName, **args: Any) -> Reply:
    command = bus_wire.command(command_name, args, tenant_id="t1", device_id="d1")
    reply = asyncio.run(CommandExecutor(cast(Ownership, _Ownership(session))).execute(command))
    assert isinstance(reply, Reply)
    return bus_wire.on_the_wire(reply)


def test_a_device_that_is_not_an_admin_is_refused_before_the_network_is_asked_to_change() -> None:
    # Given a connected device that is a plain member of the group
    session = _Session(admin=False)
    # When it tries to promote someone
    reply = _run(
        session, CommandName.GROUP_PARTICIPANTS, group_jid=GROUP, action="promote", participants=[OTHER]
    )
    # Then not_group_admin, and the network was only read
    assert (reply.ok, reply.error_kind, reply.error_code) == (False, ErrorKind.REFUSED, "not_group_admin")
    assert [name for name, _ in session.calls] == ["group_info"]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        (CommandName.UPDATE_GROUP, {"settings": {"name": "x"}}),
        (CommandName.GROUP_PICTURE, {"image_base64": "/9j/4AAQ"}),
        (CommandName.GROUP_EPHEMERAL, {"duration_seconds": 86400}),
        (CommandName.GROUP_INVITE, {"reset": True}),
        (CommandName.GROUP_REQUESTS, {}),
        (CommandName.ANSWER_GROUP_REQUESTS, {"action": "approve", "participants": [OTHER]}),
    ],
)
def test_every_admin_operation_is_refused_to_a_member(name: CommandName, args: dict[str, Any]) -> None:
    session = _Session(admin=False)
    reply = _run(session, name, group_jid=GROUP, **args)
    assert (reply.ok, reply.error_kind, reply.error_code) == (False, ErrorKind.REFUSED, "not_group_admin")
    assert [call for call, _ in session.calls] == ["group_info"]


def test_community_links_need_the_device_to_administer_the_community() -> None:
    session = _Session(admin=False)
    reply = _run(session, CommandName.LINK_GROUP, community_jid=GROUP, group_jid="120363000000000002@g.us")
    assert (reply.ok, reply.error_kind, reply.error_code) == (False, ErrorKind.REFUSED, "not_group_admin")
    assert session.calls == [("group_info", (GROUP,))]


def test_an_admin_changes_members_and_gets_each_persons_result() -> None:
    session = _Session(admin=True)
    reply = _run(
        session, CommandName.GROUP_PARTICIPANTS, group_jid=GROUP, action="promote", participants=[OTHER]
    )
    assert reply.ok, reply
    assert reply.result == {
        "participants": [{"jid": OTHER, "is_admin": True, "is_super_admin": False, "status": "ok"}]
    }
    assert session.calls[-1] == ("change_participants", (GROUP, ParticipantAction.PROMOTE, [OTHER]))


def test_reading_the_invite_is_the_networks_to_allow_resetting_it_an_admins() -> None:
    member = _Session(admin=False)
    read = _run(member, CommandName.GROUP_INVITE, group_jid=GROUP)
    assert read.ok
    assert read.result == {"invite_link": _OLD_LINK}
    reset = _run(member, CommandName.GROUP_INVITE, group_jid=GROUP, reset=True)
    assert (reset.error_kind, reset.error_code) == (ErrorKind.REFUSED, "not_group_admin")


def test_an_update_answers_the_group_as_the_network_shows_it_afterwards() -> None:
    session = _Session(admin=True)
    reply = _run(
        session, CommandName.UPDATE_GROUP, group_jid=GROUP, settings={"topic": "news", "locked": True}
    )
    assert reply.ok, reply
    assert reply.result["group"]["jid"] == GROUP
    assert ("update_group", (GROUP, GroupSettings(topic="news", locked=True))) in session.calls
    assert session.calls[-1][0] == "group_info"


def test_the_networks_refusal_is_the_replys_error_kind() -> None:
    # Given a network that refuses the join (the link was reset)
    session = _Session(admin=True, refusal="invite_link_revoked")
    reply = _run(session, CommandName.JOIN_GROUP, code="abc")
    assert (reply.ok, reply.error_kind, reply.error_code) == (False, ErrorKind.REFUSED, "invite_link_revoked")
    assert reply.device is not None
    assert reply.device.status == "connected"


def test_a_session_that_is_not_connected_touches_nothing() -> None:
    session = _Session(admin=True)
    session.state = SessionState.DISCONNECTED
    reply = _run(session, CommandName.LIST_GROUPS)
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.NOT_CONNECTED)
    assert session.calls == []


COMMUNITY = "120363000000000009@g.us"
CHILD = "120363000000000002@g.us"


def test_links_are_checked_against_the_networks_records_before_the_network_is_asked() -> None:
    # Given a device administering a community, a plain group, and a group linked elsewhere
    session = _Session(admin=True)
    session.infos[COMMUNITY] = _group(True).model_copy(update={"jid": COMMUNITY, "is_community": True})
    session.infos[CHILD] = _group(True).model_copy(
        update={"jid": CHILD, "parent_jid": "120363000000000008@g.us"}
    )
    # When it links into something that is not a community, or links a group linked elsewhere
    not_community = _run(session, CommandName.LINK_GROUP, community_jid=GROUP, group_jid=CHILD)
    linked = _run(session, CommandName.LINK_GROUP, community_jid=COMMUNITY, group_jid=CHILD)
    unlinked = _run(session, CommandName.UNLINK_GROUP, community_jid=COMMUNITY, group_jid=CHILD)
    # Then each is refused with its code, and the network was never asked to link
    assert (not_community.error_kind, not_community.error_code) == (ErrorKind.REFUSED, "not_a_community")
    assert (linked.error_kind, linked.error_code) == (ErrorKind.REFUSED, "already_linked")
    assert (unlinked.error_kind, unlinked.error_code) == (ErrorKind.REFUSED, "not_linked")
    assert {name for name, _ in session.calls} == {"group_info"}


def test_a_free_group_is_linked() -> None:
    session = _Session(admin=True)
    session.infos[COMMUNITY] = _group(True).model_copy(update={"jid": COMMUNITY, "is_community": True})
    reply = _run(session, CommandName.LINK_GROUP, community_jid=COMMUNITY, group_jid=CHILD)
    assert reply.ok, reply
    assert session.calls[-1] == ("link_group", (COMMUNITY, CHILD))
