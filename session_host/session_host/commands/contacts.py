"""Commands on other accounts: number checks, one contact's profile and identities, blocking.

Each needs the device connected (``refuse_unless_connected``) and is one call of the
session's ``contacts`` family; what the network refuses comes back as its error kind
(``NOT_FOUND``: 404 ``CONTACT_NOT_FOUND`` at the API).
"""

from __future__ import annotations

from typing import Any

from gateway.bus import Command, CommandName, Reply, contracts
from gateway.bus.contracts import NoArgs
from gateway.bus.contracts.contacts import (
    Blocklist,
    BlockState,
    CheckNumbersArgs,
    ContactRef,
    NumberChecks,
)
from session_host.commands.registry import Host, handles, ok, refuse_unless_connected
from session_host.device_tenure import OwnedDevice, session_snapshot


@handles(contracts.CHECK_CONTACTS)
async def check_contacts(_host: Host, command: Command[CheckNumbersArgs], owned: OwnedDevice) -> Reply[Any]:
    """Which of the phone numbers have an account, with its JID and LID."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    checks = await owned.session.contacts.check_numbers(command.args.phones)
    return ok(command, session_snapshot(owned.session), NumberChecks(results=checks))


@handles(contracts.GET_CONTACT)
async def get_contact(_host: Host, command: Command[ContactRef], owned: OwnedDevice) -> Reply[Any]:
    """One account's profile, its phone JID and LID resolved both ways."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    contact = await owned.session.contacts.get_contact(command.args.jid)
    return ok(command, session_snapshot(owned.session), contact)


@handles(contracts.BLOCK_CONTACT)
@handles(contracts.UNBLOCK_CONTACT)
async def set_blocked(_host: Host, command: Command[ContactRef], owned: OwnedDevice) -> Reply[Any]:
    """Block the account (its messages no longer reach the device), or unblock it."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    blocked = command.name is CommandName.BLOCK_CONTACT
    contacts = owned.session.contacts
    await (contacts.block if blocked else contacts.unblock)(command.args.jid)
    return ok(command, session_snapshot(owned.session), BlockState(jid=command.args.jid, blocked=blocked))


@handles(contracts.GET_BLOCKLIST)
async def get_blocklist(_host: Host, command: Command[NoArgs], owned: OwnedDevice) -> Reply[Any]:
    """The accounts the device's account blocks."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    blocked = await owned.session.contacts.get_blocklist()
    return ok(command, session_snapshot(owned.session), Blocklist(jids=blocked))
