"""Call routes: what the device does with a call its account is offered.

They act through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and need that device's session connected.
"""

from typing import Annotated

from fastapi import APIRouter, Depends, Path

from gateway.bus import CommandName
from gateway.calls import service
from gateway.calls.outputs import CallRejectedResponse
from gateway.calls.schemas import CallId, RejectCallRequest
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.failures.codes import ErrorCode
from gateway.failures.table import command_errors
from gateway.models import DeviceModel
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, WITH_PARAMETERS, answers, standard

router = APIRouter(tags=["calls"])


@router.post(
    "/calls/{call_id}/reject",
    responses=answers(
        AUTHENTICATED,
        WITH_BODY,
        WITH_PARAMETERS,
        ACTING_DEVICE_ERRORS,
        command_errors(CommandName.REJECT_CALL),
        standard(400, ErrorCode.MISSING_REQUIRED_FIELDS),
    ),
)
def reject_call(
    call_id: Annotated[CallId, Path(description="`call.offer`'s `call_id`")],
    body: RejectCallRequest,
    device: DeviceModel = Depends(authenticated_device),
) -> CallRejectedResponse:
    """Decline a call the device's account is offered (`call.offer`): the caller sees it
    rejected, and `call.reject` (`by: api`) follows."""
    return CallRejectedResponse(**service.reject_call(device, call_id, body))
