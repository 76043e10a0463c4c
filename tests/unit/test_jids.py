"""The phone and JID rules every caller shares (``gateway.jids``), edge cases included."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel, ValidationError

from gateway import jids
from gateway.jids import (
    CHAT_PATTERN,
    PARTICIPANT_PATTERN,
    PHONE_PATTERN,
    Address,
    Jid,
    JidKind,
    PhoneNumber,
    is_phone,
    parse_chat,
    parse_jid,
    parse_participant,
    user_jid,
)

PHONE = "4915112345678"
USER = f"{PHONE}@s.whatsapp.net"
GROUP = "120363000000000001@g.us"
LEGACY_GROUP = "4915112345678-1496154000@g.us"
LID = "207180606656725@lid"

NOT_PHONES = {
    "plus": "+4915112345678",
    "spaces": "49 151 12345678",
    "separators": "+49 151-2345 678",
    "dashes": "49-151-12345678",
    "dots": "49.151.12345678",
    "parentheses": "(49)15112345678",
    "surrounding space": " 4915112345678 ",
    "trailing newline": "4915112345678\n",
    "leading zero": "015112345678",
    "double zero prefix": "004915112345678",
    "6 digits": "123456",
    "16 digits": "1234567890123456",
    "arabic-indic digits": "٤٩١٥١١٢٣٤٥٦٧٨",
    "fullwidth digits": "\uff14\uff19\uff11\uff15\uff11\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18",
    "superscript digit": "491511234567¹",
    "empty": "",
}


class _Body(BaseModel):
    phone: PhoneNumber


@pytest.mark.parametrize("phone", ["1555123", "15551234567", "447911123456", "123456789012345"])
def test_plain_phone_numbers_are_7_to_15_ascii_digits(phone: str) -> None:
    assert is_phone(phone)
    assert user_jid(phone) == f"{phone}@s.whatsapp.net"
    assert _Body(phone=phone).phone == phone


@pytest.mark.parametrize("value", NOT_PHONES.values(), ids=NOT_PHONES.keys())
def test_phone_numbers_are_refused_not_repaired(value: str) -> None:
    # Given a number with a +, separators, a leading zero, a bad length or non-ASCII digits
    # Then every caller refuses it: the predicate, the JID builder and the request field
    assert not is_phone(value)
    assert parse_chat(value) is None
    assert parse_participant(value) is None
    with pytest.raises(ValueError, match="not a phone number"):
        user_jid(value)
    with pytest.raises(ValidationError):
        _Body(phone=value)


@pytest.mark.parametrize("value", [None, 4915112345678, ["4915112345678"]])
def test_only_strings_are_addresses(value: object) -> None:
    assert not is_phone(value)
    assert parse_chat(value) is None
    assert parse_participant(value) is None
    assert parse_jid(value) is None


@pytest.mark.parametrize(
    ("value", "address"),
    [
        (PHONE, Address(USER, JidKind.USER)),
        (USER, Address(USER, JidKind.USER)),
        (GROUP, Address(GROUP, JidKind.GROUP)),
        (LEGACY_GROUP, Address(LEGACY_GROUP, JidKind.GROUP)),
    ],
)
def test_chats_are_people_and_groups(value: str, address: Address) -> None:
    assert parse_chat(value) == address
    assert address.is_group is (address.kind is JidKind.GROUP)


@pytest.mark.parametrize(
    ("value", "address"),
    [
        (PHONE, Address(USER, JidKind.USER)),
        (USER, Address(USER, JidKind.USER)),
        (LID, Address(LID, JidKind.LID)),
        ("a1B2c3@lid", Address("a1B2c3@lid", JidKind.LID)),
    ],
)
def test_participants_are_phones_user_jids_and_lids(value: str, address: Address) -> None:
    assert parse_participant(value) == address


NEITHER = {
    "uppercase domain": f"{PHONE}@S.WHATSAPP.NET",
    "surrounding space": f" {USER} ",
    "device suffix": f"{PHONE}:3@s.whatsapp.net",
    "agent and device": f"{PHONE}.1:3@s.whatsapp.net",
    "suffix after server": f"{USER}:3",
    "short user": "123@s.whatsapp.net",
    "user with leading zero": "015112345678@s.whatsapp.net",
    "user with plus": f"+{USER}",
    "other domain": f"{PHONE}@example.com",
    "old c.us domain": f"{PHONE}@c.us",
    "letters in a group": "abc@g.us",
    "arabic-indic group": "١٢٠٣٦٣@g.us",
    "broadcast": "status@broadcast",
    "empty lid": "@lid",
    "no user": "@s.whatsapp.net",
    "two ats": f"{PHONE}@@s.whatsapp.net",
}


@pytest.mark.parametrize("value", NEITHER.values(), ids=NEITHER.keys())
def test_other_forms_are_neither_chats_nor_participants(value: str) -> None:
    assert parse_chat(value) is None
    assert parse_participant(value) is None


def test_a_lid_is_no_chat_and_a_group_is_no_participant() -> None:
    assert parse_chat(LID) is None
    assert parse_participant(GROUP) is None


SAMPLES = [PHONE, USER, GROUP, LEGACY_GROUP, LID, *NOT_PHONES.values(), *NEITHER.values()]


@pytest.mark.parametrize("value", SAMPLES)
def test_published_patterns_say_what_the_parsers_accept(value: str) -> None:
    # Given the patterns the OpenAPI document states, Then they accept exactly what is parsed
    assert (re.fullmatch(PHONE_PATTERN, value) is not None) is is_phone(value)
    assert (re.fullmatch(CHAT_PATTERN, value) is not None) is (parse_chat(value) is not None)
    assert (re.fullmatch(PARTICIPANT_PATTERN, value) is not None) is (parse_participant(value) is not None)


def test_the_request_field_publishes_the_pattern() -> None:
    assert _Body.model_json_schema()["properties"]["phone"]["pattern"] == PHONE_PATTERN


# --- whole JIDs, for the adapters ---------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "jid"),
    [
        (PHONE, Jid(PHONE, "s.whatsapp.net")),
        (USER, Jid(PHONE, "s.whatsapp.net")),
        (GROUP, Jid("120363000000000001", "g.us")),
        (LEGACY_GROUP, Jid("4915112345678-1496154000", "g.us")),
        (LID, Jid("207180606656725", "lid")),
        ("status@broadcast", Jid("status", "broadcast")),
        ("120363000000000002@newsletter", Jid("120363000000000002", "newsletter")),
        (f"{PHONE}:3@s.whatsapp.net", Jid(PHONE, "s.whatsapp.net", device=3)),
        (f"{PHONE}.1:3@s.whatsapp.net", Jid(PHONE, "s.whatsapp.net", agent=1, device=3)),
        ("207180606656725:12@lid", Jid("207180606656725", "lid", device=12)),
        (f"{PHONE}:65535@s.whatsapp.net", Jid(PHONE, "s.whatsapp.net", device=65535)),
    ],
)
def test_whole_jids_keep_their_agent_and_device(value: str, jid: Jid) -> None:
    assert parse_jid(value) == jid


@pytest.mark.parametrize(
    "value",
    [
        "",
        "+5511999998888",
        "12345",
        "abc@example.com",
        "5511999998888@c.us",
        "a b@g.us",
        f"{PHONE}@S.WHATSAPP.NET",
        f"{PHONE}:65536@s.whatsapp.net",  # beyond whatsmeow's uint16 device
        f"{PHONE}.256:1@s.whatsapp.net",  # beyond its uint8 agent
        f"{PHONE}:x@s.whatsapp.net",
        f"{PHONE}.1.2:3@s.whatsapp.net",
        "120363000000000001:3@g.us",  # a group has no devices
        "abc@s.whatsapp.net",  # a user JID's user is a phone number
        "٤٩١٥١١٢٣٤٥٦٧٨@s.whatsapp.net",
        f" {USER}",
    ],
)
def test_whole_jids_refuse_what_the_network_would_not_route(value: str) -> None:
    assert parse_jid(value) is None


@pytest.mark.parametrize(
    ("jid", "text", "bare"),
    [
        (Jid(PHONE, "s.whatsapp.net"), USER, USER),
        (Jid(PHONE, "s.whatsapp.net", device=3), f"{PHONE}:3@s.whatsapp.net", USER),
        (Jid(PHONE, "s.whatsapp.net", agent=1, device=0), f"{PHONE}.1:0@s.whatsapp.net", USER),
        (Jid("", "broadcast"), "broadcast", "broadcast"),
    ],
)
def test_jids_are_written_as_whatsmeow_writes_them(jid: Jid, text: str, bare: str) -> None:
    assert str(jid) == text
    assert jid.bare == bare
    if jid.user:
        assert parse_jid(text) == jid


@pytest.mark.parametrize(
    ("text", "mentioned"),
    [
        ("hi @15551234567!", ["15551234567@s.whatsapp.net"]),
        (
            "@15551234567 @15557654321 @15551234567",
            ["15551234567@s.whatsapp.net", "15557654321@s.whatsapp.net"],
        ),
        ("(@1234567)", ["1234567@s.whatsapp.net"]),
        ("mail a@15551234567", []),  # not at the start of a word
        ("@@15551234567", []),
        ("@0123456789", []),  # no country code
        ("@123456", []),  # too short
        ("@1234567890123456", []),  # longer than a phone number
        ("@15551234567x", []),  # the number must end the word
        ("no mentions", []),
    ],
)
def test_a_mention_is_an_at_sign_and_a_phone_number_as_a_word(text: str, mentioned: list[str]) -> None:
    assert jids.mentioned_jids(text) == mentioned
