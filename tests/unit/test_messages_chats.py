"""Which chats and senders message operations accept, and the JID each becomes."""

from __future__ import annotations

import pytest

from gateway.messages.chats import Chat, parse_chat, parse_person


@pytest.mark.parametrize(
    ("value", "chat"),
    [
        ("4915112345678", Chat("4915112345678@s.whatsapp.net", is_group=False)),
        (" 4915112345678@s.whatsapp.net ", Chat("4915112345678@s.whatsapp.net", is_group=False)),
        ("120363000000000001@g.us", Chat("120363000000000001@g.us", is_group=True)),
        ("4915112345678-1496154000@g.us", Chat("4915112345678-1496154000@g.us", is_group=True)),
    ],
)
def test_people_and_groups_are_chats(value: str, chat: Chat) -> None:
    assert parse_chat(value) == chat


@pytest.mark.parametrize(
    "value",
    [
        "",
        "+4915112345678",
        "123456",  # too short for a phone number
        "4915112345678@s.whatsapp.net:3",
        "4915112345678:3@s.whatsapp.net",  # a device of the account, not the chat
        "15551234567@lid",  # a LID names a person, not a chat
        "status@broadcast",
        "٤٩١٥١١٢٣٤٥٦٧٨",  # non-ASCII digits
        "abc@g.us",
    ],
)
def test_anything_else_is_not_a_chat(value: str) -> None:
    assert parse_chat(value) is None


def test_a_person_is_a_user_jid_phone_digits_or_a_lid() -> None:
    assert parse_person("4915112345678") == "4915112345678@s.whatsapp.net"
    assert parse_person("4915112345678@s.whatsapp.net") == "4915112345678@s.whatsapp.net"
    assert parse_person("123456789012345@lid") == "123456789012345@lid"
    assert parse_person("120363000000000001@g.us") is None
    assert parse_person("someone") is None
