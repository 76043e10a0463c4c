"""The contacts part of the network port: which phone numbers have an account, one account's
profile with both its identities, and the device's blocklist.

An account has two identities on the network: its user JID (``<phone>@s.whatsapp.net``) and
its LID (``<opaque>@lid``), which the network uses where it hides the phone number. Both
adapters implement :class:`ContactOperations` (a session's ``contacts``) and check inputs with
:mod:`.contact_checks` first, so they refuse the same inputs with the same kind (``INVALID``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

# The records answered are the command bus's contracts' models, as they cross the bus.
from gateway.bus.contracts.contacts import ContactInfo, NumberCheck

__all__ = ["ContactInfo", "ContactOperations", "NumberCheck"]


class ContactOperations(Protocol):
    """What a device session learns of other accounts and whom it blocks; every method fails
    with :class:`~.port.NetworkError` (``NOT_CONNECTED``: nothing was sent)."""

    async def check_numbers(self, phones: Sequence[str]) -> list[NumberCheck]:
        """One answer per distinct phone number, in the order given; ``INVALID`` for an
        empty list, more than :data:`~gateway.bus.contracts.contacts.MAX_CHECK_NUMBERS` or a
        value that is no plain phone number."""

    async def get_contact(self, jid: str) -> ContactInfo:
        """The account ``jid`` (a user JID or a LID) names, both identities resolved where
        the adapter can; ``NOT_FOUND`` when no account has it, ``INVALID`` for anything else."""

    async def block(self, jid: str) -> None:
        """Block the account (its messages, calls and presence no longer reach the device's
        account); blocking a blocked account changes nothing. ``NOT_FOUND`` when no account
        has it; ``INVALID`` for the device's own account."""

    async def unblock(self, jid: str) -> None:
        """Unblock the account; unblocking one that is not blocked changes nothing."""

    async def get_blocklist(self) -> list[str]:
        """The accounts the device's account blocks, as the network keeps them (user JIDs;
        on the real network also LIDs)."""
