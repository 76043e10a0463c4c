"""The neonize adapter's group operations: invites, joining, communities and join requests;
calls on a session that is not connected; and how whatsmeow's errors become refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest.mock import call

import pytest
from fakes_neonize import (
    FakeNetwork,
    deliver,
    make_port,
    open_session,
    patched_client,
    run,
    seed_paired,
)
from fakes_neonize_groups import (
    ANA,
    COMMUNITY,
    COMMUNITY_JID,
    GROUP,
    GROUP_JID,
    JPEG,
    library_calls,
    on_connected,
)
from neonize.events import DisconnectedEv
from neonize.exc import (
    GetGroupInfoError,
    InviteLinkError,
    JoinGroupWithInviteError,
    UpdateGroupParticipantsError,
)
from neonize.proto.Neonize_pb2 import GroupParticipantRequest
from recording_sink import RecordingSink

from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import (
    GroupInvite,
    GroupOptions,
    GroupSettings,
    JoinOutcome,
    ParticipantAction,
    PendingJoinRequest,
    RequestAction,
)
from session_host.network.neonize.link import group_error
from session_host.network.port import NetworkError

# --- invites and joining --------------------------------------------------------------------


def test_invite_link_is_read_or_reset(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.get_group_invite_link.side_effect = [
            "https://chat.whatsapp.com/Old123",
            "https://chat.whatsapp.com/New456",
        ]
        assert await session.groups.group_invite_link(GROUP_JID) == "https://chat.whatsapp.com/Old123"
        assert (
            await session.groups.group_invite_link(GROUP_JID, reset=True)
            == "https://chat.whatsapp.com/New456"
        )
        assert client.get_group_invite_link.call_args_list == [
            call(GROUP, revoke=False),
            call(GROUP, revoke=True),
        ]

    on_connected(tmp_path, body)


def test_joining_by_link_reads_the_group_to_know_whether_approval_is_pending(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.join_group_with_link.return_value = GROUP
        # When the device can read the group afterwards, it is a member
        joined = await session.groups.join_group(GroupInvite(code="AbC123"))
        assert joined == JoinOutcome(group_jid=GROUP_JID, pending_approval=False)
        # When it cannot (not participating), its request waits for an admin
        client.get_group_info.side_effect = GetGroupInfoError("you're not participating in that group")
        pending = await session.groups.join_group(GroupInvite(code="AbC123"))
        assert pending == JoinOutcome(group_jid=GROUP_JID, pending_approval=True)
        assert client.join_group_with_link.call_args_list == [call("AbC123"), call("AbC123")]
        assert client.get_group_info.call_args_list == [call(GROUP), call(GROUP)]

    on_connected(tmp_path, body)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("that group invite link has been revoked", "invite_link_revoked"),
        ("that group invite link is not valid", "group_not_found"),
        ("info query returned status 409: conflict", "already_member"),
        ("info query returned status 406: not-acceptable", "group_not_found"),
    ],
)
def test_join_refusals_name_their_code(tmp_path: Path, message: str, code: str) -> None:
    async def body(session: Any, client: Any) -> None:
        client.join_group_with_link.side_effect = InviteLinkError(message)
        with pytest.raises(NetworkError) as raised:
            await session.groups.join_group(GroupInvite(code="AbC123"))
        assert (raised.value.kind, raised.value.code) == (ErrorKind.REFUSED, code)
        assert message in str(raised.value)
        assert library_calls(client) == ["join_group_with_link"]

    on_connected(tmp_path, body)


def test_joining_with_an_invitation_code_names_the_group_and_the_inviter(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        invite = GroupInvite(code="XyZ789", group_jid=GROUP_JID, inviter_jid="12025550101")
        assert await session.groups.join_group(invite) == JoinOutcome(
            group_jid=GROUP_JID, pending_approval=False
        )
        client.join_group_with_invite.assert_called_once_with(GROUP, ANA, "XyZ789", 0)
        client.join_group_with_invite.side_effect = JoinGroupWithInviteError(
            "info query returned status 410: gone"
        )
        with pytest.raises(NetworkError) as raised:
            await session.groups.join_group(invite)
        assert raised.value.code == "invite_link_revoked"
        with pytest.raises(NetworkError) as half:
            await session.groups.join_group(GroupInvite(code="XyZ789", group_jid=GROUP_JID))
        assert half.value.code == "invalid_request"

    on_connected(tmp_path, body)


def test_leave_link_unlink_and_join_requests(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.get_group_request_participants.return_value = [
            GroupParticipantRequest(Participant=ANA, TimeAt=1_700_000_123_456_789),
        ]
        await session.groups.leave_group(GROUP_JID)
        await session.groups.link_group(COMMUNITY_JID, GROUP_JID)
        await session.groups.unlink_group(COMMUNITY_JID, GROUP_JID)
        requests = await session.groups.group_requests(GROUP_JID)
        assert client.mock_calls[1:] == [
            call.leave_group(GROUP),
            call.link_group(COMMUNITY, GROUP),
            call.unlink_group(COMMUNITY, GROUP),
            call.get_group_request_participants(GROUP),
        ]
        # TimeAt is in microseconds
        assert requests == [
            PendingJoinRequest(jid="12025550101@s.whatsapp.net", requested_at=1_700_000_123.456789)
        ]

    on_connected(tmp_path, body)


@pytest.mark.parametrize("action", [RequestAction.APPROVE, RequestAction.REJECT])
def test_answering_join_requests_is_unsupported_without_a_call(tmp_path: Path, action: RequestAction) -> None:
    async def body(session: Any, client: Any) -> None:
        with pytest.raises(NetworkError) as raised:
            await session.groups.answer_group_requests(GROUP_JID, action, ["12025550101"])
        assert raised.value.kind is ErrorKind.UNSUPPORTED
        assert f"{action.value} 1 join request(s) of {GROUP_JID}" in str(raised.value)
        assert library_calls(client) == []

    on_connected(tmp_path, body)


# --- not connected ----------------------------------------------------------------------------

EVERY_CALL = [
    lambda s: s.groups.create_group("Team", ["12025550101"], GroupOptions()),
    lambda s: s.groups.joined_groups(),
    lambda s: s.groups.group_info(GROUP_JID),
    lambda s: s.groups.change_participants(GROUP_JID, ParticipantAction.ADD, ["12025550101"]),
    lambda s: s.groups.update_group(GROUP_JID, GroupSettings(name="x")),
    lambda s: s.groups.set_group_picture(GROUP_JID, JPEG),
    lambda s: s.groups.set_group_ephemeral(GROUP_JID, 86400),
    lambda s: s.groups.group_invite_link(GROUP_JID, reset=True),
    lambda s: s.groups.join_group(GroupInvite(code="AbC123")),
    lambda s: s.groups.leave_group(GROUP_JID),
    lambda s: s.groups.link_group(COMMUNITY_JID, GROUP_JID),
    lambda s: s.groups.unlink_group(COMMUNITY_JID, GROUP_JID),
    lambda s: s.groups.group_requests(GROUP_JID),
]


@pytest.mark.parametrize("operation", EVERY_CALL)
def test_group_calls_on_a_dropped_connection_raise_without_touching_the_client(
    tmp_path: Path, operation: Any
) -> None:
    async def body(session: Any, client: Any) -> None:
        await deliver(client, DisconnectedEv(status=True))
        with pytest.raises(NetworkError) as raised:
            await operation(session)
        assert raised.value.kind is ErrorKind.NOT_CONNECTED
        assert library_calls(client) == []

    on_connected(tmp_path, body)


def test_group_calls_before_connect_raise_not_connected(tmp_path: Path) -> None:
    seed_paired(tmp_path)
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, RecordingSink())
            for operation in EVERY_CALL:
                with pytest.raises(NetworkError) as raised:
                    await operation(session)
                assert raised.value.kind is ErrorKind.NOT_CONNECTED
            assert fake.clients == []

    run(scenario())


# --- error mapping ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "kind", "code"),
    [
        ("that group does not exist", ErrorKind.REFUSED, "group_not_found"),
        ("you're not participating in that group", ErrorKind.REFUSED, "group_not_found"),
        ("info query returned status 404: item-not-found", ErrorKind.REFUSED, "group_not_found"),
        (
            "failed to get old group info to update topic: that group does not exist",
            ErrorKind.REFUSED,
            "group_not_found",
        ),
        ("that group invite link is not valid", ErrorKind.REFUSED, "group_not_found"),
        ("that group invite link has been revoked", ErrorKind.REFUSED, "invite_link_revoked"),
        ("info query returned status 410: gone", ErrorKind.REFUSED, "invite_link_revoked"),
        ("info query returned status 401: not-authorized", ErrorKind.REFUSED, "not_group_admin"),
        ("info query returned status 403: forbidden", ErrorKind.REFUSED, "not_group_admin"),
        (
            "you don't have the permission to get the group's invite link",
            ErrorKind.REFUSED,
            "not_group_admin",
        ),
        ("the given data is not a valid image", ErrorKind.REFUSED, "invalid_image"),
        ("info query returned status 429: rate-overlimit", ErrorKind.RATE_LIMITED, None),
        ("info query timed out", ErrorKind.TIMEOUT, None),
        ("info query returned status 500: internal-server-error", ErrorKind.NETWORK, None),
        ("websocket not connected", ErrorKind.NETWORK, None),
    ],
)
def test_group_error_mapping(message: str, kind: ErrorKind, code: str | None) -> None:
    error = group_error("get group", GetGroupInfoError(message))
    assert (error.kind, error.code) == (kind, code)
    assert str(error) == f"get group failed: {message}"


@pytest.mark.parametrize(
    ("message", "kind", "code"),
    [
        ("info query returned status 406: not-acceptable", ErrorKind.REFUSED, "group_not_found"),
        ("info query returned status 409: conflict", ErrorKind.REFUSED, "already_member"),
        ("info query returned status 403: forbidden", ErrorKind.NETWORK, None),
        ("info query returned status 401: not-authorized", ErrorKind.NETWORK, None),
    ],
)
def test_join_error_mapping_reads_406_and_409_and_never_says_admin(
    message: str, kind: ErrorKind, code: str | None
) -> None:
    error = group_error("join group", InviteLinkError(message), joining=True)
    assert (error.kind, error.code) == (kind, code)


def test_a_refusal_through_the_session_keeps_the_library_message(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.update_group_participants.side_effect = UpdateGroupParticipantsError(
            "info query returned status 403: forbidden"
        )
        with pytest.raises(NetworkError) as raised:
            await session.groups.change_participants(GROUP_JID, ParticipantAction.PROMOTE, ["12025550101"])
        assert raised.value.code == "not_group_admin"
        assert "promote participants failed: info query returned status 403: forbidden" in str(raised.value)

    on_connected(tmp_path, body)
