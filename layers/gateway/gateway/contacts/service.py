"""Contacts through the request's device: the input is checked here first (400
``VALIDATION_ERROR``), then the device's status on its record (503), then one command on the
bus; its failures are answered by :mod:`gateway.failures.table` (``NOT_FOUND``: 404
``CONTACT_NOT_FOUND``)."""

from __future__ import annotations

from gateway import jids
from gateway.bus import contracts
from gateway.bus.contracts.contacts import CheckNumbersArgs, ContactRef
from gateway.contacts.outputs import (
    BlocklistResponse,
    BlockResponse,
    ContactChecksResponse,
    ContactResponse,
    ContactView,
    NumberCheckView,
)
from gateway.contacts.schemas import CheckContactsRequest
from gateway.devices import commands
from gateway.devices.access import require_session
from gateway.errors import validation_error
from gateway.models import DeviceModel
from gateway.observability import logger


def check_numbers(device: DeviceModel, body: CheckContactsRequest) -> ContactChecksResponse:
    """Which of the numbers have an account, each asked once."""
    numbers = list(dict.fromkeys(body.numbers))
    require_session(device)
    checks = commands.execute(device, contracts.CHECK_CONTACTS, CheckNumbersArgs(phones=numbers)).result
    logger.info("numbers checked", extra={"device_id": device.device_id, "count": len(numbers)})
    results = [
        NumberCheckView(number=check.phone, on_network=check.on_network, jid=check.jid, lid=check.lid)
        for check in checks.results
    ]
    return ContactChecksResponse(results=results)


def get_contact(device: DeviceModel, jid: str) -> ContactResponse:
    """One account's profile, by phone digits, user JID or LID."""
    person = person_jid(jid)
    require_session(device)
    found = commands.execute(device, contracts.GET_CONTACT, ContactRef(jid=person)).result
    return ContactResponse(contact=ContactView(**found.model_dump()))


def set_blocked(device: DeviceModel, jid: str, *, blocked: bool) -> BlockResponse:
    """Block or unblock an account; doing what is already so changes nothing."""
    person = person_jid(jid)
    require_session(device)
    contract = contracts.BLOCK_CONTACT if blocked else contracts.UNBLOCK_CONTACT
    state = commands.execute(device, contract, ContactRef(jid=person)).result
    logger.info("blocklist changed", extra={"device_id": device.device_id, "blocked": blocked})
    return BlockResponse(jid=state.jid, blocked=state.blocked)


def blocklist(device: DeviceModel) -> BlocklistResponse:
    """The accounts the device's account blocks, as the network keeps them."""
    require_session(device)
    return BlocklistResponse(jids=commands.execute(device, contracts.GET_BLOCKLIST).result.jids)


def person_jid(jid: str) -> str:
    """The JID a path's ``{jid}`` names (phone digits become a user JID); 400 otherwise."""
    address = jids.parse_participant(jid)
    if address is None:
        message = f"must be phone digits ({jids.PHONE_RULE}), a user JID or a LID"
        raise validation_error("jid", message, jid)
    return address.jid
