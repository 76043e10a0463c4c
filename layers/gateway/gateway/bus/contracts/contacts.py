"""Contracts of the commands on other people's accounts: number checks, one contact's
profile with its phone JID and LID, and blocking."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from gateway.bus.contracts.base import CommandArgs, CommandResult, Participant
from gateway.jids import PHONE_PATTERN

MAX_CHECK_NUMBERS = 50
"""The most phone numbers one check asks the network about (POST /contacts/check's limit too)."""

Phone = Annotated[str, StringConstraints(pattern=PHONE_PATTERN)]


class CheckNumbersArgs(CommandArgs):
    """Distinct phone numbers, in the order asked."""

    phones: list[Phone] = Field(min_length=1, max_length=MAX_CHECK_NUMBERS)


class NumberCheck(CommandResult):
    """Whether ``phone`` has an account; its user JID (the network's spelling) and LID if so
    (the LID may be unknown: null)."""

    phone: str
    on_network: bool
    jid: str | None = None
    lid: str | None = None


class NumberChecks(CommandResult):
    results: list[NumberCheck]


class ContactRef(CommandArgs):
    """A person: a user JID or a LID (the API turns phone digits into a user JID)."""

    jid: Participant


class ContactInfo(CommandResult):
    """An account as the network shows it to the device; ``jid`` is null when only its LID is
    known, ``lid`` when only its phone JID is. Also the port's record of a contact
    (``session_host.network.contact_types``): an adapter's answer is the command's result."""

    jid: str | None
    lid: str | None
    name: str | None = None
    about: str | None = None
    picture_url: str | None = None
    is_business: bool = False


class BlockState(CommandResult):
    jid: str
    blocked: bool


class Blocklist(CommandResult):
    jids: list[str]
