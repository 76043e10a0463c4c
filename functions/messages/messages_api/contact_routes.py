"""Contact routes: number checks, one contact's profile and identities, blocking.

Each acts through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and needs that device's session connected. The rules are
in ``gateway.contacts`` (docs/contacts.md).
"""

from typing import Annotated

from fastapi import APIRouter, Depends

from gateway.bus import CommandName
from gateway.contacts import service
from gateway.contacts.outputs import BlocklistResponse, BlockResponse, ContactChecksResponse, ContactResponse
from gateway.contacts.schemas import CheckContactsRequest, PersonInPath
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.failures.codes import ErrorCode
from gateway.failures.table import command_errors
from gateway.models import DeviceModel
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, answers, standard

router = APIRouter(tags=["contacts"])

Device = Annotated[DeviceModel, Depends(authenticated_device)]
INPUT_ERRORS = standard(400, ErrorCode.VALIDATION_ERROR)
BLOCK_ANSWERS = answers(
    AUTHENTICATED,
    ACTING_DEVICE_ERRORS,
    command_errors(CommandName.BLOCK_CONTACT, CommandName.UNBLOCK_CONTACT),
    INPUT_ERRORS,
)


@router.post(
    "/contacts/check",
    responses=answers(
        AUTHENTICATED,
        WITH_BODY,
        ACTING_DEVICE_ERRORS,
        command_errors(CommandName.CHECK_CONTACTS),
        INPUT_ERRORS,
    ),
)
def check_contacts(body: CheckContactsRequest, device: Device) -> ContactChecksResponse:
    """Which phone numbers have an account on the network, with the JID to write to and the
    LID: check before writing to a number."""
    return service.check_numbers(device, body)


@router.get(
    "/contacts/blocklist",
    responses=answers(AUTHENTICATED, ACTING_DEVICE_ERRORS, command_errors(CommandName.GET_BLOCKLIST)),
)
def get_blocklist(device: Device) -> BlocklistResponse:
    """The accounts the device's account blocks."""
    return service.blocklist(device)


@router.get(
    "/contacts/{jid}",
    responses=answers(
        AUTHENTICATED, ACTING_DEVICE_ERRORS, command_errors(CommandName.GET_CONTACT), INPUT_ERRORS
    ),
)
def get_contact(jid: PersonInPath, device: Device) -> ContactResponse:
    """One account's profile by phone digits, user JID or LID, with its phone JID and LID
    resolved both ways; 404 `CONTACT_NOT_FOUND` when the network has no such account."""
    return service.get_contact(device, jid)


@router.put("/contacts/{jid}/block", responses=BLOCK_ANSWERS)
def block_contact(jid: PersonInPath, device: Device) -> BlockResponse:
    """Block the account: its messages, calls and presence no longer reach the device."""
    return service.set_blocked(device, jid, blocked=True)


@router.delete("/contacts/{jid}/block", responses=BLOCK_ANSWERS)
def unblock_contact(jid: PersonInPath, device: Device) -> BlockResponse:
    """Unblock the account."""
    return service.set_blocked(device, jid, blocked=False)
