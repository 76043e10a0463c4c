"""Group operations against a stand-in bus: the command each sends, the checks made before
anything is sent, and how the session host's records become the API's."""

from __future__ import annotations

import base64
import uuid
from typing import Any

import pytest
from stand_in_bus import StandInBus, install

from gateway.bus import BusTimeout, CommandName, Reply
from gateway.devices import commands
from gateway.errors import OperationError
from gateway.failures.kinds import ErrorKind
from gateway.groups import service
from gateway.groups.schemas import (
    AnswerRequestsRequest,
    CreateGroupRequest,
    EphemeralRequest,
    JoinRequest,
    PictureRequest,
    UpdateGroupRequest,
)
from gateway.models import DeviceModel

GROUP = "120363000000000001@g.us"
ME = "4915112345678@s.whatsapp.net"
FRIEND = "15551234567@s.whatsapp.net"


def record(**fields: Any) -> dict[str, Any]:
    """A group as the host answers it (the JSON of ``gateway.bus.contracts.groups.GroupInfo``)."""
    return {
        "jid": GROUP,
        "name": "Trip",
        "topic": "Summer",
        "owner": ME,
        "created_at": 1767225600.25,
        "is_announce": False,
        "is_locked": True,
        "join_approval": None,
        "member_add_mode": "admin",
        "ephemeral_duration": 86400,
        "is_community": False,
        "parent_jid": None,
        "participants": [
            {"jid": ME, "is_admin": True, "is_super_admin": True, "lid": "111@lid"},
            {"jid": FRIEND, "is_admin": False, "is_super_admin": False, "lid": None},
        ],
        **fields,
    }


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> StandInBus:
    return install(monkeypatch, commands, Reply(command_id="c", ok=True))


def device(status: str = "connected") -> DeviceModel:
    return DeviceModel(
        "tenant-1",
        str(uuid.uuid4()),
        owner_user_id="owner",
        name="phone",
        status=status,
        created_at="2026-01-01T00:00:00.000Z",
        updated_at="2026-01-01T00:00:00.000Z",
    )


def test_a_group_record_becomes_the_apis(bus: StandInBus) -> None:
    # Given the host's record of a group
    bus.result({"group": record()})
    # When the group is read
    group = service.get_group(device(), GROUP).group.model_dump()
    # Then the API's record: ISO time, description = topic, counted members, no LIDs
    assert group == {
        "jid": GROUP,
        "name": "Trip",
        "topic": "Summer",
        "description": "Summer",
        "owner": ME,
        "created_at": "2026-01-01T00:00:00.250Z",
        "is_announce": False,
        "is_locked": True,
        "join_approval": None,
        "member_add_mode": "admin",
        "ephemeral_duration": 86400,
        "is_community": False,
        "parent_jid": None,
        "members_count": 2,
        "participants": [
            {"jid": ME, "is_admin": True, "is_super_admin": True},
            {"jid": FRIEND, "is_admin": False, "is_super_admin": False},
        ],
    }
    assert bus.sent[0]["name"] is CommandName.GROUP_INFO
    assert bus.args() == {"group_jid": GROUP}


def test_create_sends_jids_and_options_and_answers_each_persons_outcome(bus: StandInBus) -> None:
    bus.result(
        {
            "group": record(),
            "participants": [{"jid": FRIEND, "status": "ok", "is_admin": False, "is_super_admin": False}],
        }
    )
    body = CreateGroupRequest(
        name="Trip", participants=["15551234567"], options={"join_approval": True, "parent_jid": "1@g.us"}
    )
    created = service.create_group(device(), body)
    assert bus.args() == {
        "name": "Trip",
        "participants": [FRIEND],
        "options": {
            "announcement": False,
            "locked": False,
            "join_approval": True,
            "community": False,
            "parent_jid": "1@g.us",
        },
    }
    assert [p.model_dump() for p in created.participants] == [
        {"jid": FRIEND, "is_admin": False, "is_super_admin": False, "status": "ok"}
    ]


def test_list_answers_every_group(bus: StandInBus) -> None:
    bus.result({"groups": [record(), record(jid="2@g.us", is_community=True)]})
    groups = service.list_groups(device()).groups
    assert [(g.jid, g.is_community) for g in groups] == [(GROUP, False), ("2@g.us", True)]
    assert bus.args() == {}


def test_remove_sends_the_remove_action(bus: StandInBus) -> None:
    bus.result(
        {
            "participants": [
                {"jid": FRIEND, "status": "not_member", "is_admin": False, "is_super_admin": False}
            ]
        }
    )
    answer = service.change_participants(device(), GROUP, "remove", ["15551234567"])
    assert bus.args() == {"group_jid": GROUP, "action": "remove", "participants": [FRIEND]}
    assert answer.group_jid == GROUP
    assert answer.participants[0].status == "not_member"


def test_patch_sends_settings_and_answers_the_refreshed_group(bus: StandInBus) -> None:
    bus.result({"group": record(name="New", topic="")})
    answer = service.update_group(
        device(), GROUP, UpdateGroupRequest(name="New", description="", announcement=True)
    )
    assert bus.args() == {"group_jid": GROUP, "settings": {"name": "New", "topic": "", "announce": True}}
    assert (answer.group.name, answer.group.description) == ("New", "")


def test_picture_and_timer_go_as_given(bus: StandInBus) -> None:
    image = base64.b64encode(b"\xff\xd8\xff\xe0rest").decode()
    bus.result({"picture_id": "1700000001"})
    assert service.set_picture(device(), GROUP, PictureRequest(image_base64=image)).picture_id == "1700000001"
    assert bus.args() == {"group_jid": GROUP, "image_base64": image}
    bus.sent.clear()
    bus.result({"duration_seconds": 604800})
    assert (
        service.set_ephemeral(device(), GROUP, EphemeralRequest(duration_seconds=604800)).duration_seconds
        == 604800
    )


def test_invite_read_and_reset(bus: StandInBus) -> None:
    bus.result({"invite_link": "https://chat.whatsapp.com/AbC"})
    assert service.invite_link(device(), GROUP).invite_link == "https://chat.whatsapp.com/AbC"
    reset = service.reset_invite_link(device(), GROUP)
    assert [sent["args"]["reset"] for sent in bus.sent] == [False, True]
    assert reset.reset_at.endswith("Z")


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ({"group_jid": GROUP, "pending_approval": False}, (GROUP, False, None)),
        ({"group_jid": GROUP, "pending_approval": True}, (GROUP, True, GROUP)),
        ({"group_jid": None, "pending_approval": True}, (None, True, None)),
    ],
    ids=["joined", "pending", "pending, group unknown"],
)
def test_join_answers_pending_approval_with_the_request_jid(
    bus: StandInBus, result: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    bus.result(result)
    answer = service.join_group(device(), JoinRequest(link="https://chat.whatsapp.com/AbC"))
    assert (answer.group_jid, answer.pending_approval, answer.approval_request_jid) == expected
    assert bus.args() == {"code": "AbC"}


def test_join_by_code_names_the_group_even_when_the_network_does_not(bus: StandInBus) -> None:
    bus.result({"group_jid": None, "pending_approval": True})
    body = JoinRequest(invite_code="AbC", group_jid=GROUP, inviter_jid="15551234567")
    answer = service.join_group(device(), body)
    assert (answer.group_jid, answer.approval_request_jid) == (GROUP, GROUP)


def test_community_link_and_unlink(bus: StandInBus) -> None:
    service.link_group(device(), "2@g.us", GROUP, link=True)
    service.link_group(device(), "2@g.us", GROUP, link=False)
    assert [(s["name"], s["args"]) for s in bus.sent] == [
        (CommandName.LINK_GROUP, {"community_jid": "2@g.us", "group_jid": GROUP}),
        (CommandName.UNLINK_GROUP, {"community_jid": "2@g.us", "group_jid": GROUP}),
    ]


def test_join_requests_are_listed_oldest_first_with_iso_times(bus: StandInBus) -> None:
    bus.result(
        {
            "requests": [
                {"jid": FRIEND, "requested_at": 1767225660.0},
                {"jid": ME, "requested_at": 1767225600.0},
            ]
        }
    )
    listed = service.join_requests(device(), GROUP)
    assert [(r.jid, r.requested_at) for r in listed.requests] == [
        (ME, "2026-01-01T00:00:00.000Z"),
        (FRIEND, "2026-01-01T00:01:00.000Z"),
    ]


def test_answering_join_requests(bus: StandInBus) -> None:
    bus.result(
        {"participants": [{"jid": FRIEND, "status": "ok", "is_admin": False, "is_super_admin": False}]}
    )
    body = AnswerRequestsRequest(action="approve", participants=["15551234567"])
    answer = service.answer_join_requests(device(), GROUP, body)
    assert bus.args() == {"group_jid": GROUP, "action": "approve", "participants": [FRIEND]}
    assert [p.model_dump() for p in answer.participants] == [{"jid": FRIEND, "status": "ok"}]


# --- before and after the bus -------------------------------------------------------------


@pytest.mark.parametrize("status", ["not_ready", "pairing", "disconnected", "logged_out"])
def test_a_device_that_is_not_connected_is_503_and_nothing_is_sent(bus: StandInBus, status: str) -> None:
    with pytest.raises(OperationError) as error:
        service.list_groups(device(status))
    assert (error.value.status, error.value.code) == (503, "device_disconnected")
    assert bus.sent == []


def test_bad_input_is_refused_before_the_devices_status(bus: StandInBus) -> None:
    with pytest.raises(OperationError) as error:
        service.get_group(device("disconnected"), "nope")
    assert error.value.code == "invalid_group_jid"
    assert bus.sent == []


def test_no_answer_in_time_is_504_operation_timeout(bus: StandInBus) -> None:
    bus.answer = BusTimeout("no answer")
    with pytest.raises(OperationError) as error:
        service.leave_group(device(), GROUP)
    assert (error.value.status, error.value.code) == (504, "operation_timeout")


def test_a_refusal_reply_is_answered_lowercase(bus: StandInBus) -> None:
    bus.answer = Reply(
        command_id="c",
        ok=False,
        error_kind=ErrorKind.REFUSED,
        error_code="not_group_admin",
        error_message="not an admin",
    )
    with pytest.raises(OperationError) as error:
        service.set_ephemeral(device(), GROUP, EphemeralRequest(duration_seconds=0))
    assert (error.value.status, error.value.code) == (403, "not_group_admin")


@pytest.mark.parametrize(
    "result",
    [
        {},
        {"group": {"jid": GROUP}},
        {"group": record(created_at="yesterday")},
        {"group": record(is_locked="maybe")},
    ],
)
def test_an_incomplete_answer_is_500_device_error(bus: StandInBus, result: dict[str, Any]) -> None:
    bus.result(result)
    with pytest.raises(OperationError) as error:
        service.get_group(device(), GROUP)
    assert (error.value.status, error.value.code) == (500, "device_error")
