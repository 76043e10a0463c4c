"""Outbox routes: the device's sends as a resource, to follow and cancel planned sends.

They act through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it; they read the outbox, so they answer whatever the
device's session is doing.
"""

from fastapi import APIRouter, Depends, Query

from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.failures.codes import ErrorCode
from gateway.messages import send_list
from gateway.messages.outputs import SendCanceledResponse, SendListResponse, SendResponse
from gateway.messages.sends import ShownState
from gateway.models import DeviceModel
from gateway.pagination import PageRequest, page_request
from gateway.web.error_docs import AUTHENTICATED, WITH_PARAMETERS, answers, standard

router = APIRouter(tags=["messages"])

NOT_FOUND = standard(404, ErrorCode.MESSAGE_NOT_FOUND)


@router.get("/sends", responses=answers(AUTHENTICATED, WITH_PARAMETERS, ACTING_DEVICE_ERRORS))
def list_sends(
    device: DeviceModel = Depends(authenticated_device),
    paging: PageRequest = Depends(page_request),
    state: ShownState | None = Query(default=None, description="only sends in this state"),
) -> SendListResponse:
    """The device's sends, newest request first."""
    page = send_list.list_sends(device, paging, state)
    return SendListResponse(sends=page.items, next=page.next)


@router.get("/sends/{message_id}", responses=answers(AUTHENTICATED, ACTING_DEVICE_ERRORS, NOT_FOUND))
def get_send(message_id: str, device: DeviceModel = Depends(authenticated_device)) -> SendResponse:
    """One send of the device, by the gateway's id or (once sent) the network's."""
    return SendResponse(**send_list.get_send(device, message_id).model_dump())


@router.delete(
    "/sends/{message_id}",
    responses=answers(AUTHENTICATED, ACTING_DEVICE_ERRORS, NOT_FOUND, standard(409, ErrorCode.ALREADY_SENT)),
)
def cancel_send(message_id: str, device: DeviceModel = Depends(authenticated_device)) -> SendCanceledResponse:
    """Cancel a send that has not gone out; 409 `ALREADY_SENT` once a host is sending it or it went out."""
    return SendCanceledResponse(message_id=send_list.cancel_send(device, message_id))
