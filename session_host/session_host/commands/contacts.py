"""Commands on other accounts: number checks, one contact's profile and identities, blocking.

Each is one call of the session's ``contacts`` family on a connected session
(:func:`~.registry.on_session`); what the network refuses comes back as its error kind
(``NOT_FOUND``: 404 ``CONTACT_NOT_FOUND`` at the API).
"""

from __future__ import annotations

from gateway.bus import contracts
from gateway.bus.contracts import NoArgs
from gateway.bus.contracts.contacts import (
    Blocklist,
    BlockState,
    CheckNumbersArgs,
    ContactInfo,
    ContactRef,
    NumberChecks,
)
from session_host.commands.registry import on_session
from session_host.network.port import DeviceSession


@on_session(contracts.CHECK_CONTACTS)
async def check_contacts(session: DeviceSession, args: CheckNumbersArgs) -> NumberChecks:
    """Which of the phone numbers have an account, with its JID and LID."""
    return NumberChecks(results=await session.contacts.check_numbers(args.phones))


@on_session(contracts.GET_CONTACT)
async def get_contact(session: DeviceSession, args: ContactRef) -> ContactInfo:
    """One account's profile, its phone JID and LID resolved both ways."""
    return await session.contacts.get_contact(args.jid)


@on_session(contracts.BLOCK_CONTACT)
async def block_contact(session: DeviceSession, args: ContactRef) -> BlockState:
    """Block the account: its messages no longer reach the device."""
    await session.contacts.block(args.jid)
    return BlockState(jid=args.jid, blocked=True)


@on_session(contracts.UNBLOCK_CONTACT)
async def unblock_contact(session: DeviceSession, args: ContactRef) -> BlockState:
    """Unblock the account."""
    await session.contacts.unblock(args.jid)
    return BlockState(jid=args.jid, blocked=False)


@on_session(contracts.GET_BLOCKLIST)
async def get_blocklist(session: DeviceSession, _args: NoArgs) -> Blocklist:
    """The accounts the device's account blocks."""
    return Blocklist(jids=await session.contacts.get_blocklist())
