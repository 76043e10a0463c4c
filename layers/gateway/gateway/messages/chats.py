"""The chats and senders message operations accept, and the JID each one becomes.

A chat is a person (a user JID, or the phone digits it is made of) or a group (a group
JID). A sender, the person who wrote messages in a group, is named the way participants are:
a user JID, phone digits, or a LID.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

USER_SERVER = "s.whatsapp.net"
GROUP_SERVER = "g.us"
LID_SERVER = "lid"

_PHONE = re.compile(r"[0-9]{7,15}")
_USER_JID = re.compile(r"[0-9]{7,15}@s\.whatsapp\.net")
# Group ids are digits; groups made before 2021 have `<creator phone>-<creation time>` ids.
_GROUP_JID = re.compile(r"[0-9]{1,32}(-[0-9]{1,20})?@g\.us")
_LID = re.compile(r"[0-9A-Za-z]{1,64}@lid")

# The same rules as JSON Schema patterns, for the request schemas.
PERSON_CHAT_PATTERN = f"^(?:{_PHONE.pattern}|{_USER_JID.pattern})$"
GROUP_CHAT_PATTERN = f"^{_GROUP_JID.pattern}$"
PERSON_PATTERN = f"^(?:{_PHONE.pattern}|{_USER_JID.pattern}|{_LID.pattern})$"


@dataclass(frozen=True)
class Chat:
    jid: str
    is_group: bool


def parse_chat(value: str) -> Chat | None:
    """The chat ``value`` names, or None when it is neither a person nor a group."""
    value = value.strip()
    if _PHONE.fullmatch(value):
        return Chat(f"{value}@{USER_SERVER}", is_group=False)
    if _USER_JID.fullmatch(value):
        return Chat(value, is_group=False)
    if _GROUP_JID.fullmatch(value):
        return Chat(value, is_group=True)
    return None


def parse_person(value: str) -> str | None:
    """The JID of the person ``value`` names (phone digits become a user JID), else None."""
    value = value.strip()
    if _PHONE.fullmatch(value):
        return f"{value}@{USER_SERVER}"
    if _USER_JID.fullmatch(value) or _LID.fullmatch(value):
        return value
    return None
