"""Message routes: operations on the messages a device sent or received.

Each acts through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and needs that device's session connected.
"""

from fastapi import APIRouter, Depends

from gateway.bus import CommandName
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.failures.codes import ErrorCode
from gateway.failures.table import command_errors
from gateway.messages import operations, receipts
from gateway.messages.outputs import DeleteMessageResponse, HistorySyncResponse, MarkReadResponse
from gateway.messages.schemas import DeleteMessageRequest, HistorySyncRequest, MarkReadRequest
from gateway.models import DeviceModel
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, answers, standard

router = APIRouter(tags=["messages"])

INPUT_ERRORS = standard(400, ErrorCode.MISSING_REQUIRED_FIELDS, ErrorCode.INVALID_CHAT_JID)


@router.post(
    "/messages/read",
    responses=answers(
        AUTHENTICATED,
        WITH_BODY,
        ACTING_DEVICE_ERRORS,
        command_errors(CommandName.MARK_READ),
        INPUT_ERRORS,
    ),
)
def mark_messages_read(
    body: MarkReadRequest, device: DeviceModel = Depends(authenticated_device)
) -> MarkReadResponse:
    """Mark received messages as read: the device sends read receipts to their sender."""
    return MarkReadResponse(**receipts.mark_read(device, body))


@router.delete(
    "/messages/{message_id}",
    responses=answers(
        AUTHENTICATED,
        WITH_BODY,
        ACTING_DEVICE_ERRORS,
        command_errors(CommandName.DELETE_MESSAGE),
        INPUT_ERRORS,
    ),
)
def delete_message(
    message_id: str, body: DeleteMessageRequest, device: DeviceModel = Depends(authenticated_device)
) -> DeleteMessageResponse:
    """Delete a message the device sent, by the gateway's id or the network's: for everyone
    within the network's window, or for the device's account at any time."""
    return DeleteMessageResponse(**operations.delete_message(device, message_id, body))


@router.post(
    "/history/sync",
    responses=answers(
        AUTHENTICATED,
        WITH_BODY,
        ACTING_DEVICE_ERRORS,
        command_errors(CommandName.SYNC_HISTORY),
        INPUT_ERRORS,
    ),
)
def sync_history(
    body: HistorySyncRequest, device: DeviceModel = Depends(authenticated_device)
) -> HistorySyncResponse:
    """Ask the device's phone for a chat's latest messages; they arrive as `history.sync`."""
    return HistorySyncResponse(**operations.sync_history(device, body))
