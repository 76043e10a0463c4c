"""Message routes: operations on the messages a device sent or received.

Each acts through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and needs that device's session connected.
"""

from typing import Any

from fastapi import APIRouter, Depends

from gateway.devices.dependencies import authenticated_device
from gateway.messages import receipts
from gateway.messages.schemas import MarkReadRequest
from gateway.models import DeviceModel

router = APIRouter(tags=["messages"])


@router.post("/messages/read")
def mark_messages_read(
    body: MarkReadRequest, device: DeviceModel = Depends(authenticated_device)
) -> dict[str, Any]:
    """Mark received messages as read: the device sends read receipts to their sender."""
    return {"success": True, **receipts.mark_read(device, body)}
