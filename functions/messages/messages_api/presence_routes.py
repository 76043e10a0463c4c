"""Presence routes: whether the device's account shows as online, and following another
person's presence (their changes arrive as ``contact.presence``).

They act through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and need that device's session connected.
"""

from fastapi import APIRouter, Depends

from gateway.bus import CommandName
from gateway.contacts.schemas import PersonInPath
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.failures.table import command_errors
from gateway.models import DeviceModel
from gateway.profile import service
from gateway.profile.outputs import PresenceResponse, PresenceSubscribedResponse
from gateway.profile.schemas import PresenceRequest
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, WITH_PARAMETERS, answers

router = APIRouter(tags=["presence"])


@router.put(
    "/presence",
    responses=answers(
        AUTHENTICATED, WITH_BODY, ACTING_DEVICE_ERRORS, command_errors(CommandName.SET_PRESENCE)
    ),
)
def set_presence(
    body: PresenceRequest, device: DeviceModel = Depends(authenticated_device)
) -> PresenceResponse:
    """Show the device's account online (`available`) or offline to those who follow its presence."""
    return service.set_presence(device, body)


@router.post(
    "/contacts/{jid}/presence/subscribe",
    responses=answers(
        AUTHENTICATED, WITH_PARAMETERS, ACTING_DEVICE_ERRORS, command_errors(CommandName.SUBSCRIBE_PRESENCE)
    ),
)
def subscribe_presence(
    jid: PersonInPath, device: DeviceModel = Depends(authenticated_device)
) -> PresenceSubscribedResponse:
    """Follow a person's presence: each time they come online or go offline, the device gets
    `contact.presence`."""
    return service.subscribe_presence(device, jid)
