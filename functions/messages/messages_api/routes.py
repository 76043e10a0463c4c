"""Message routes: operations on the messages a device sent or received.

Each acts through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and needs that device's session connected.
"""

from fastapi import APIRouter, Depends

from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.command_errors import COMMAND_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.messages import receipts
from gateway.messages.outputs import MarkReadResponse
from gateway.messages.schemas import MarkReadRequest
from gateway.models import DeviceModel
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, answers, standard

router = APIRouter(tags=["messages"])


@router.post(
    "/messages/read",
    responses=answers(
        AUTHENTICATED,
        WITH_BODY,
        ACTING_DEVICE_ERRORS,
        COMMAND_ERRORS,
        standard(400, "MISSING_REQUIRED_FIELDS", "INVALID_CHAT_JID"),
    ),
)
def mark_messages_read(
    body: MarkReadRequest, device: DeviceModel = Depends(authenticated_device)
) -> MarkReadResponse:
    """Mark received messages as read: the device sends read receipts to their sender."""
    return MarkReadResponse(**receipts.mark_read(device, body))
