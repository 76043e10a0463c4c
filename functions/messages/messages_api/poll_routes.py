"""POST /send/poll: a poll the device sends, answered as POST /send/text (200 sent, 202
scheduled, the same errors and ``Idempotency-Key``); its votes come as ``poll.vote``."""

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from gateway.devices.dependencies import authenticated_device
from gateway.messages import send_kinds
from gateway.messages.schemas import SendPollRequest
from gateway.models import DeviceModel
from gateway.web.idempotency import IdempotencyKey
from messages_api.send_media_routes import RESPONSES, send_once

router = APIRouter(tags=["messages"])


@router.post("/send/poll", response_model=None, responses=RESPONSES)
def send_poll(
    body: SendPollRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Send a poll: a question and 2 to 12 distinct options, one answer or several."""
    return send_once("send_poll", body, device, idempotency_key, lambda: send_kinds.poll(body))
