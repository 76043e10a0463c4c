"""Group request bodies and the checks with codes of their own: what is accepted, what each
refusal answers, and that the published schemas never accept what the route refuses."""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from pydantic import ValidationError

from gateway.errors import OperationError
from gateway.groups import inputs
from gateway.groups.schemas import (
    INVITE_LINK_PATTERN,
    JPEG_BASE64_PATTERN,
    MAX_IMAGE_BASE64,
    CreateGroupRequest,
    EphemeralRequest,
    JoinRequest,
    ParticipantsRequest,
    UpdateGroupRequest,
)
from gateway.groups.service import settings_of

JPEG = b"\xff\xd8\xff\xe0" + b"\x00\x10JFIF" + bytes(range(40))


def refused(code: str, status: int, call: Any, *args: Any) -> OperationError:
    with pytest.raises(OperationError) as error:
        call(*args)
    assert (error.value.status, error.value.code) == (status, code)
    assert error.value.body()["error"]["code"] == code
    return error.value


# --- people and JIDs --------------------------------------------------------------------


def test_phone_numbers_become_user_jids_and_lids_stay_as_given() -> None:
    # Given a phone number, a user JID, a LID and a repeat of the first person
    given = ["15551234567", "4915112345678@s.whatsapp.net", "98765abc@lid", "15551234567@s.whatsapp.net"]
    # Then each person is named once, as a JID, in the order given
    assert inputs.participants(given) == [
        "15551234567@s.whatsapp.net",
        "4915112345678@s.whatsapp.net",
        "98765abc@lid",
    ]


@pytest.mark.parametrize(
    "value", ["+15551234567", "0155512345", "123", "120363000000000001@g.us", "abc", " 15551234567", ""]
)
def test_anything_else_is_invalid_participant(value: str) -> None:
    error = refused("invalid_participant", 400, inputs.participants, ["15551234567", value])
    assert repr(value) in error.message


def test_an_empty_list_of_people_is_accepted() -> None:
    assert inputs.participants([]) == []


@pytest.mark.parametrize("value", ["120363000000000001@g.us", "15551234567-1600000000@g.us"])
def test_group_jids_are_accepted(value: str) -> None:
    assert inputs.group_jid(value) == value


@pytest.mark.parametrize(
    "value", ["120363000000000001", "15551234567@s.whatsapp.net", "abc@g.us", "1@G.US", "join"]
)
def test_other_strings_are_invalid_group_jid(value: str) -> None:
    refused("invalid_group_jid", 400, inputs.group_jid, value)


# --- picture and timer ------------------------------------------------------------------


def test_a_base64_jpeg_is_accepted_as_sent() -> None:
    encoded = base64.b64encode(JPEG).decode()
    assert inputs.jpeg_base64(encoded) == encoded
    assert re.fullmatch(JPEG_BASE64_PATTERN, encoded)


@pytest.mark.parametrize(
    "value",
    [
        base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(20)).decode(),  # a PNG
        "/9j/not base64!",
        "",
        base64.b64encode(JPEG).decode()[:-1],  # padding cut
        "/9j/" + "A" * MAX_IMAGE_BASE64,  # too large for the command bus
    ],
    ids=["png", "not base64", "empty", "bad padding", "too large"],
)
def test_anything_else_is_invalid_image(value: str) -> None:
    refused("invalid_image", 400, inputs.jpeg_base64, value)
    assert not (re.fullmatch(JPEG_BASE64_PATTERN, value) and len(value) <= MAX_IMAGE_BASE64)


@pytest.mark.parametrize("seconds", [0, 86400, 604800, 7776000])
def test_the_four_timers_are_accepted(seconds: int) -> None:
    assert inputs.duration(EphemeralRequest(duration_seconds=seconds).duration_seconds) == seconds


@pytest.mark.parametrize("seconds", [1, 3600, -86400, 86401, 7776001])
def test_other_timers_are_invalid_duration(seconds: int) -> None:
    refused("invalid_duration", 400, inputs.duration, seconds)


@pytest.mark.parametrize("value", ["86400", True, 86400.5, None])
def test_a_timer_that_is_not_an_integer_does_not_validate(value: Any) -> None:
    with pytest.raises(ValidationError):
        EphemeralRequest(duration_seconds=value)


# --- joining ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("link", "code"),
    [
        ("https://chat.whatsapp.com/AbCdEf123", "AbCdEf123"),
        ("chat.whatsapp.com/AbCdEf123?utm=1", "AbCdEf123"),
        ("https://chat.whatsapp.com/AbC#top", "AbC"),
    ],
)
def test_the_link_form_takes_the_code_of_the_link(link: str, code: str) -> None:
    invite = inputs.invite(JoinRequest(link=link))
    assert invite.model_dump(exclude_none=True) == {"code": code}
    assert re.fullmatch(INVITE_LINK_PATTERN, link)


@pytest.mark.parametrize(
    "link",
    [
        "https://example.com/AbCdEf",
        "https://chat.whatsapp.com/",
        "https://chat.whatsapp.com/a/b",
        "chat.whatsapp.com",
    ],
)
def test_a_link_without_an_invite_code_is_invalid_invite_link(link: str) -> None:
    refused("invalid_invite_link", 400, inputs.invite, JoinRequest(link=link))
    assert not re.fullmatch(INVITE_LINK_PATTERN, link)


def test_the_code_form_takes_group_and_inviter_as_jids() -> None:
    body = JoinRequest(invite_code="AbC123", group_jid="120363000000000001@g.us", inviter_jid="15551234567")
    assert inputs.invite(body).model_dump() == {
        "code": "AbC123",
        "group_jid": "120363000000000001@g.us",
        "inviter_jid": "15551234567@s.whatsapp.net",
    }


@pytest.mark.parametrize(
    "body",
    [
        {"link": "https://chat.whatsapp.com/AbC", "invite_code": "AbC"},
        {"link": "https://chat.whatsapp.com/AbC", "group_jid": "120363000000000001@g.us"},
        {},
        {"invite_code": "AbC", "group_jid": "120363000000000001@g.us"},
        {"invite_code": "AbC", "inviter_jid": "15551234567"},
    ],
    ids=["both forms", "link and a code-form field", "neither", "no inviter", "no group"],
)
def test_both_forms_or_an_incomplete_one_is_invalid_request(body: dict[str, Any]) -> None:
    error = refused("invalid_request", 400, inputs.invite, JoinRequest(**body))
    assert error.message


def test_the_code_form_checks_its_group_and_inviter() -> None:
    base = {"invite_code": "AbC", "group_jid": "120363000000000001@g.us", "inviter_jid": "15551234567"}
    refused("invalid_group_jid", 400, inputs.invite, JoinRequest(**{**base, "group_jid": "15551234567"}))
    refused("invalid_participant", 400, inputs.invite, JoinRequest(**{**base, "inviter_jid": "x@g.us"}))


# --- bodies -----------------------------------------------------------------------------


def test_create_options_default_to_off() -> None:
    body = CreateGroupRequest(name="Trip", participants=[])
    assert body.options.model_dump(exclude_none=True) == {
        "announcement": False,
        "locked": False,
        "join_approval": False,
        "community": False,
    }


@pytest.mark.parametrize(
    "body",
    [
        {"participants": []},
        {"name": "", "participants": []},
        {"name": "   ", "participants": []},
        {"name": "x" * 101, "participants": []},
        {"name": "Trip"},
        {"name": "Trip", "participants": "15551234567"},
        {"name": "Trip", "participants": [], "options": {"locked": "yes"}},
    ],
    ids=["no name", "empty name", "blank name", "long name", "no participants", "not a list", "not a bool"],
)
def test_a_create_body_out_of_shape_does_not_validate(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        CreateGroupRequest(**body)


def test_participant_action_defaults_to_add_and_knows_four() -> None:
    assert ParticipantsRequest(participants=[]).action == "add"
    with pytest.raises(ValidationError):
        ParticipantsRequest(action="kick", participants=[])


@pytest.mark.parametrize(
    ("body", "settings"),
    [
        ({"name": "New"}, {"name": "New"}),
        ({"description": "About"}, {"topic": "About"}),
        ({"topic": "About", "description": "About"}, {"topic": "About"}),
        ({"topic": ""}, {"topic": ""}),
        (
            {"announcement": True, "locked": False, "join_approval": True, "member_add_mode": "all"},
            {"announce": True, "locked": False, "join_approval": True, "member_add_mode": "all"},
        ),
    ],
)
def test_patch_fields_become_the_session_hosts_settings(
    body: dict[str, Any], settings: dict[str, Any]
) -> None:
    assert settings_of(UpdateGroupRequest(**body)).model_dump(mode="json", exclude_none=True) == settings


@pytest.mark.parametrize(
    "body",
    [{}, {"unknown": 1}, {"name": None}, {"topic": "a", "description": "b"}],
    ids=["empty", "only unknown fields", "only nulls", "topic and description differ"],
)
def test_a_patch_that_changes_nothing_or_contradicts_itself_is_invalid_request(body: dict[str, Any]) -> None:
    refused("invalid_request", 400, settings_of, UpdateGroupRequest(**body))


def test_member_add_mode_is_admin_or_all() -> None:
    with pytest.raises(ValidationError):
        UpdateGroupRequest(member_add_mode="everyone")
