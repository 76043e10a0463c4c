"""Reaction and edit routes: what a device does to a message already in a chat.

Each acts through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and needs that device's session connected.
"""

from fastapi import APIRouter, Depends

from gateway.bus import CommandName
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.failures.codes import ErrorCode
from gateway.failures.table import command_errors
from gateway.messages import operations
from gateway.messages.outputs import EditMessageResponse, ReactionResponse
from gateway.messages.schemas import EditMessageRequest, ReactRequest
from gateway.models import DeviceModel
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, answers, standard

router = APIRouter(tags=["messages"])

INPUT_ERRORS = standard(
    400, ErrorCode.MISSING_REQUIRED_FIELDS, ErrorCode.INVALID_CHAT_JID, ErrorCode.VALIDATION_ERROR
)


@router.post(
    "/messages/{message_id}/reaction",
    responses=answers(
        AUTHENTICATED,
        WITH_BODY,
        ACTING_DEVICE_ERRORS,
        command_errors(CommandName.REACT_MESSAGE),
        INPUT_ERRORS,
    ),
)
def react(
    message_id: str, body: ReactRequest, device: DeviceModel = Depends(authenticated_device)
) -> ReactionResponse:
    """React to a message of a chat (one the device sent, by the gateway's id or the network's,
    or one it received, by the network's), or remove the reaction with an empty emoji."""
    return ReactionResponse(**operations.react(device, message_id, body))


@router.patch(
    "/messages/{message_id}",
    responses=answers(
        AUTHENTICATED,
        WITH_BODY,
        ACTING_DEVICE_ERRORS,
        command_errors(CommandName.EDIT_MESSAGE),
        INPUT_ERRORS,
    ),
)
def edit_message(
    message_id: str, body: EditMessageRequest, device: DeviceModel = Depends(authenticated_device)
) -> EditMessageResponse:
    """Give a text the device sent a new text (by the gateway's id or the network's), within
    the network's window: 15 minutes from sending."""
    return EditMessageResponse(**operations.edit_message(device, message_id, body))
