"""The neonize adapter's group member and settings changes against an autospec ``NewClient``."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest.mock import call

import pytest
from fakes_neonize import jid
from fakes_neonize_groups import (
    ANA,
    BOB,
    CAI,
    DEE,
    DEE_LID,
    GROUP,
    GROUP_JID,
    JPEG,
    library_calls,
    on_connected,
    person,
    refused_person,
)
from neonize.exc import SetGroupPhotoError, SetGroupTopicError
from neonize.utils.enum import ParticipantChange

from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import (
    GroupSettings,
    MemberAddMode,
    MemberOutcome,
    ParticipantAction,
)
from session_host.network.port import NetworkError

# --- members --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "change"),
    [
        (ParticipantAction.ADD, ParticipantChange.ADD),
        (ParticipantAction.REMOVE, ParticipantChange.REMOVE),
        (ParticipantAction.PROMOTE, ParticipantChange.PROMOTE),
        (ParticipantAction.DEMOTE, ParticipantChange.DEMOTE),
    ],
)
def test_change_participants_passes_the_library_enum(
    tmp_path: Path, action: ParticipantAction, change: ParticipantChange
) -> None:
    async def body(session: Any, client: Any) -> None:
        client.update_group_participants.return_value = [person(ANA)]
        results = await session.groups.change_participants(GROUP_JID, action, ["12025550101"])
        client.update_group_participants.assert_called_once_with(GROUP, [ANA], change)
        promoted = action is ParticipantAction.PROMOTE
        assert results == [MemberOutcome(jid="12025550101@s.whatsapp.net", status="ok", is_admin=promoted)]

    on_connected(tmp_path, body)


def test_per_person_errors_become_per_person_statuses_in_the_order_asked(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        # Given the network's answer, in its own order, DEE named by LID with the phone
        client.update_group_participants.return_value = [
            refused_person(CAI, 403),
            refused_person(BOB, 409),
            person(DEE_LID, phone=DEE),
            refused_person(ANA, 403, invite=True),
            refused_person(jid("12025550105"), 404),
            refused_person(jid("12025550106"), 408),
        ]
        asked = ["12025550101", "12025550102", "12025550103", "12025550104", "12025550105", "12025550106"]
        results = await session.groups.change_participants(
            GROUP_JID, ParticipantAction.ADD, [*asked, "12025550107"]
        )
        assert [(r.jid.split("@")[0], r.status) for r in results] == [
            ("12025550101", "invite_sent"),
            ("12025550102", "already_member"),
            ("12025550103", "not_allowed"),
            ("12025550104", "ok"),
            ("12025550105", "not_found"),
            ("12025550106", "not_allowed"),
            ("12025550107", "not_found"),  # the network said nothing about this one
        ]

    on_connected(tmp_path, body)


def test_removing_someone_not_in_the_group_is_not_member_and_flags_follow_the_action(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.update_group_participants.return_value = [person(ANA, admin=True), refused_person(BOB, 404)]
        results = await session.groups.change_participants(
            GROUP_JID, ParticipantAction.REMOVE, ["12025550101", "12025550102"]
        )
        assert results == [
            MemberOutcome(jid="12025550101@s.whatsapp.net", status="ok"),
            MemberOutcome(jid="12025550102@s.whatsapp.net", status="not_member"),
        ]

    on_connected(tmp_path, body)


def test_a_participant_that_is_not_a_person_is_refused_before_any_call(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        with pytest.raises(NetworkError) as raised:
            await session.groups.change_participants(
                GROUP_JID, ParticipantAction.ADD, ["12025550101", "not-a-jid"]
            )
        assert (raised.value.kind, raised.value.code) == (ErrorKind.REFUSED, "invalid_participant")
        with pytest.raises(NetworkError) as bad_group:
            await session.groups.change_participants(
                "12025550101@s.whatsapp.net", ParticipantAction.ADD, ["1202555"]
            )
        assert bad_group.value.code == "invalid_group_jid"
        assert library_calls(client) == []

    on_connected(tmp_path, body)


# --- settings -------------------------------------------------------------------------------


def test_update_group_applies_the_fields_in_a_fixed_order(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        settings = GroupSettings(locked=False, announce=True, topic="New plans", name="Team B")
        await session.groups.update_group(GROUP_JID, settings)
        assert client.mock_calls[1:] == [
            call.set_group_name(GROUP, "Team B"),
            call.set_group_topic(GROUP, "", "", "New plans"),
            call.set_group_announce(GROUP, True),
            call.set_group_locked(GROUP, False),
        ]

    on_connected(tmp_path, body)


def test_an_update_failing_part_way_names_what_was_applied(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.set_group_topic.side_effect = SetGroupTopicError(
            "info query returned status 401: not-authorized"
        )
        with pytest.raises(NetworkError) as raised:
            await session.groups.update_group(GROUP_JID, GroupSettings(name="Team B", topic="x", locked=True))
        assert (raised.value.kind, raised.value.code) == (ErrorKind.REFUSED, "not_group_admin")
        assert "topic not changed (applied: name)" in str(raised.value)
        assert library_calls(client) == ["set_group_name", "set_group_topic"]

    on_connected(tmp_path, body)


@pytest.mark.parametrize(
    "settings",
    [
        GroupSettings(name="Team B", join_approval=True),
        GroupSettings(topic="x", member_add_mode=MemberAddMode.ALL),
        GroupSettings(join_approval=False),
    ],
    ids=["join_approval", "member_add_mode", "join_approval-off"],
)
def test_settings_neonize_cannot_change_are_unsupported_before_changing_any(
    tmp_path: Path, settings: GroupSettings
) -> None:
    async def body(session: Any, client: Any) -> None:
        with pytest.raises(NetworkError) as raised:
            await session.groups.update_group(GROUP_JID, settings)
        assert raised.value.kind is ErrorKind.UNSUPPORTED
        assert "not supported by neonize 0.5.2" in str(raised.value)
        assert library_calls(client) == []

    on_connected(tmp_path, body)


def test_set_group_picture_sends_the_jpeg_bytes_and_returns_the_picture_id(tmp_path: Path) -> None:
    async def body(session: Any, client: Any) -> None:
        client.set_group_photo.return_value = "1700000123"
        assert await session.groups.set_group_picture(GROUP_JID, JPEG) == "1700000123"
        client.set_group_photo.assert_called_once_with(GROUP, JPEG)
        with pytest.raises(NetworkError) as raised:
            await session.groups.set_group_picture(GROUP_JID, b"\x89PNG\r\n")
        assert raised.value.code == "invalid_image"
        client.set_group_photo.side_effect = SetGroupPhotoError("the given data is not a valid image")
        with pytest.raises(NetworkError) as network:
            await session.groups.set_group_picture(GROUP_JID, JPEG)
        assert network.value.code == "invalid_image"
        assert client.set_group_photo.call_count == 2

    on_connected(tmp_path, body)


@pytest.mark.parametrize(
    ("seconds", "nanoseconds"),
    [(0, 0), (86400, 86_400_000_000_000), (604800, 604_800_000_000_000), (7776000, 7_776_000_000_000_000)],
)
def test_the_disappearing_timer_is_sent_in_nanoseconds(
    tmp_path: Path, seconds: int, nanoseconds: int
) -> None:
    async def body(session: Any, client: Any) -> None:
        await session.groups.set_group_ephemeral(GROUP_JID, seconds)
        client.set_disappearing_timer.assert_called_once_with(GROUP, nanoseconds)
        assert type(client.set_disappearing_timer.call_args.args[1]) is int  # never a timedelta

    on_connected(tmp_path, body)


@pytest.mark.parametrize("seconds", [3600, True, -1])
def test_other_timers_are_refused_without_a_call(tmp_path: Path, seconds: int) -> None:
    async def body(session: Any, client: Any) -> None:
        with pytest.raises(NetworkError) as raised:
            await session.groups.set_group_ephemeral(GROUP_JID, seconds)
        assert raised.value.code == "invalid_duration"
        assert library_calls(client) == []

    on_connected(tmp_path, body)
