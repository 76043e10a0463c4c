"""Input rules both adapters apply to contact operations before anything is sent, so they
refuse the same inputs with the same kind (``INVALID``)."""

from __future__ import annotations

from collections.abc import Sequence

from gateway import jids
from gateway.bus.contracts.contacts import MAX_CHECK_NUMBERS
from gateway.failures.kinds import ErrorKind

from .port import NetworkError


def check_phones(phones: Sequence[str]) -> list[str]:
    """The distinct phone numbers, in order; ``INVALID`` for none, too many, or a bad one."""
    distinct = list(dict.fromkeys(phones))
    if not 1 <= len(distinct) <= MAX_CHECK_NUMBERS:
        raise NetworkError(ErrorKind.INVALID, f"check 1 to {MAX_CHECK_NUMBERS} phone numbers")
    bad = [phone for phone in distinct if not jids.is_phone(phone)]
    if bad:
        raise NetworkError(ErrorKind.INVALID, f"not phone numbers ({jids.PHONE_RULE}): {', '.join(bad)}")
    return distinct


def check_person(jid: str) -> jids.Address:
    """The person ``jid`` names (a user JID or a LID); ``INVALID`` for anything else."""
    address = jids.parse_participant(jid)
    if address is None:
        raise NetworkError(ErrorKind.INVALID, f"not a user JID or LID: {jid!r}")
    return address
