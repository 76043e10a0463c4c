"""Phone numbers and JIDs: the one place their rules are written.

The API (request bodies and their OpenAPI patterns), the simulated network and the neonize
adapter all parse and format addresses here, so an address one of them accepts is accepted
by the others. The shapes (see ``docs/identifiers.md``):

========================  ===============================================================
Plain phone number        ``[1-9][0-9]{6,14}``: 7 to 15 ASCII digits, country code first
User JID                  ``<phone number>@s.whatsapp.net``
Group (or community) JID  ``<1 to 32 digits>@g.us``; groups made before 2021 have
                          ``<creator phone>-<creation time>@g.us``
LID                       ``<1 to 64 ASCII letters or digits>@lid``
========================  ===============================================================

Inputs are refused, never repaired: no trimming, no ``+`` or separators removed, no
lowercasing. A value is accepted only when it already is the canonical form, which is what
every event and reply of the gateway carries, so a client that echoes those back is never
refused, and the published patterns state the whole rule. Only ASCII digits count:
``str.isdigit`` (Arabic-Indic, fullwidth digits) is never used. A leading zero is refused in
phone numbers (country codes never start with 0: such a number lacks its country code).

Device and agent parts (``user[.agent][:device]@server``, as whatsmeow writes the JID of one
device of an account) are understood only by :func:`parse_jid`, for the adapters; the chats
and participants of the API are accounts, never one device of one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, Field

USER_SERVER = "s.whatsapp.net"
GROUP_SERVER = "g.us"
LID_SERVER = "lid"
BROADCAST_SERVER = "broadcast"
NEWSLETTER_SERVER = "newsletter"
KNOWN_SERVERS = frozenset({USER_SERVER, GROUP_SERVER, LID_SERVER, BROADCAST_SERVER, NEWSLETTER_SERVER})
STATUS_BROADCAST_JID = f"status@{BROADCAST_SERVER}"
"""Where stories are published, and the chat a linked device sees its contacts' stories in."""

_PHONE = r"[1-9][0-9]{6,14}"
_GROUP_ID = r"[0-9]{1,32}(?:-[0-9]{1,20})?"
_LID_ID = r"[0-9A-Za-z]{1,64}"
_OTHER_ID = r"[0-9A-Za-z]{1,64}"  # status@broadcast, <digits>@newsletter

PHONE_PATTERN = rf"^{_PHONE}$"
USER_JID_PATTERN = rf"^{_PHONE}@s\.whatsapp\.net$"
GROUP_JID_PATTERN = rf"^{_GROUP_ID}@g\.us$"
LID_PATTERN = rf"^{_LID_ID}@lid$"
CHAT_PATTERN = rf"^(?:{_PHONE}|{_PHONE}@s\.whatsapp\.net|{_GROUP_ID}@g\.us)$"
"""What a chat input may be: a phone number, a user JID or a group JID."""
PARTICIPANT_PATTERN = rf"^(?:{_PHONE}|{_PHONE}@s\.whatsapp\.net|{_LID_ID}@lid)$"
"""What a participant (a person) input may be: a phone number, a user JID or a LID."""

PHONE_RULE = "7 to 15 digits, country code first (not 0), without + or separators"

_USER_PARTS = {
    USER_SERVER: re.compile(_PHONE),
    GROUP_SERVER: re.compile(_GROUP_ID),
    LID_SERVER: re.compile(_LID_ID),
    BROADCAST_SERVER: re.compile(_OTHER_ID),
    NEWSLETTER_SERVER: re.compile(_OTHER_ID),
}
_DEVICE_SERVERS = frozenset({USER_SERVER, LID_SERVER})
"""Servers whose JIDs may name one device of an account (``:device``, ``.agent``)."""
_FULL_JID = re.compile(
    r"(?P<user>[^@.:]+)(?:\.(?P<agent>[0-9]{1,3}))?(?::(?P<device>[0-9]{1,5}))?@(?P<server>[^@]+)"
)
_MAX_AGENT = 0xFF  # whatsmeow keeps the agent in a uint8 and the device in a uint16
_MAX_DEVICE = 0xFFFF


class JidKind(StrEnum):
    """What an address names: a person by phone, a group, or a person by LID."""

    USER = "user"
    GROUP = "group"
    LID = "lid"


@dataclass(frozen=True)
class Address:
    """A chat or participant input, as the JID it becomes and what kind of address it is."""

    jid: str
    kind: JidKind

    @property
    def is_group(self) -> bool:
        return self.kind is JidKind.GROUP


@dataclass(frozen=True)
class Jid:
    """A JID's parts, as whatsmeow has them (``agent`` and ``device`` are 0 when absent)."""

    user: str
    server: str
    agent: int = 0
    device: int = 0

    @property
    def bare(self) -> str:
        """``user@server``: the account, without agent or device (the gateway's form)."""
        return f"{self.user}@{self.server}" if self.user else self.server

    def __str__(self) -> str:
        """The whole JID, written as whatsmeow's ``JID.String()`` writes it."""
        if self.agent > 0:
            return f"{self.user}.{self.agent}:{self.device}@{self.server}"
        if self.device > 0:
            return f"{self.user}:{self.device}@{self.server}"
        return self.bare


def _full(pattern: str, value: object) -> bool:
    return isinstance(value, str) and re.fullmatch(pattern, value) is not None


def is_phone(value: object) -> bool:
    """Whether ``value`` is a plain phone number (see the module's rules)."""
    return _full(PHONE_PATTERN, value)


def is_user_jid(value: object) -> bool:
    return _full(USER_JID_PATTERN, value)


def is_group_jid(value: object) -> bool:
    return _full(GROUP_JID_PATTERN, value)


def is_lid(value: object) -> bool:
    return _full(LID_PATTERN, value)


def user_jid(phone: str) -> str:
    """The user JID of a phone number.

    Raises
    ------
    ValueError
        When ``phone`` is not a plain phone number: a JID is never built from a bad one.
    """
    if not is_phone(phone):
        raise ValueError(f"not a phone number ({PHONE_RULE}): {phone!r}")
    return f"{phone}@{USER_SERVER}"


_MENTION = re.compile(rf"(?<![\w@])@({_PHONE})(?![\w@])")


def mentioned_jids(text: str) -> list[str]:
    """The people a text mentions, as user JIDs, each once, in order of first mention.

    A mention is ``@`` and a phone number (``@15551234567``), as WhatsApp's clients write
    one and neonize reads one; the ``@`` must start a word and the number end it, so e-mail
    addresses and longer digit runs are not mentions.
    """
    return list(dict.fromkeys(user_jid(phone) for phone in _MENTION.findall(text)))


def parse_chat(value: object) -> Address | None:
    """The chat ``value`` names: a person (phone number or user JID) or a group (group JID).

    None for anything else, a LID included: a LID names a person inside a group, not a chat.
    """
    if is_phone(value):
        return Address(f"{value}@{USER_SERVER}", JidKind.USER)
    if is_user_jid(value):
        return Address(str(value), JidKind.USER)
    if is_group_jid(value):
        return Address(str(value), JidKind.GROUP)
    return None


def parse_participant(value: object) -> Address | None:
    """The person ``value`` names: a phone number or user JID (kind USER), or a LID.

    None for anything else (a group JID included): the API answers ``invalid_participant``.
    """
    if is_phone(value):
        return Address(f"{value}@{USER_SERVER}", JidKind.USER)
    if is_user_jid(value):
        return Address(str(value), JidKind.USER)
    if is_lid(value):
        return Address(str(value), JidKind.LID)
    return None


def parse_jid(value: object) -> Jid | None:
    """A JID of any server the network uses, device and agent parts included, or phone
    digits (the user JID of that phone); None for anything else.

    For the adapters, which address the network itself. The user part must follow its
    server's rule (a user JID's is a phone number); only user and LID JIDs may name a device.
    """
    if not isinstance(value, str):
        return None
    if is_phone(value):
        return Jid(value, USER_SERVER)
    match = _FULL_JID.fullmatch(value)
    if match is None:
        return None
    user, server = match["user"], match["server"]
    if server not in KNOWN_SERVERS or not _USER_PARTS[server].fullmatch(user):
        return None
    agent, device = int(match["agent"] or 0), int(match["device"] or 0)
    if (match["agent"] or match["device"]) and server not in _DEVICE_SERVERS:
        return None
    if agent > _MAX_AGENT or device > _MAX_DEVICE:
        return None
    return Jid(user, server, agent, device)


def _phone_number(value: str) -> str:
    if not is_phone(value):
        raise ValueError(f"must be {PHONE_RULE}")
    return value


PhoneNumber = Annotated[
    str,
    AfterValidator(_phone_number),
    Field(
        json_schema_extra={"pattern": PHONE_PATTERN},
        description=f"A plain phone number: {PHONE_RULE}",
        examples=["15551234567"],
    ),
]
"""A request field holding a plain phone number; its OpenAPI schema states the pattern."""
