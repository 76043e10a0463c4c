"""Send routes: messages a device sends, held open until they are dispatched (or scheduled).

They act through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and need that device's session connected. Each takes an
``Idempotency-Key`` header.
"""

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from gateway.config import get_settings
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.messages import sending
from gateway.messages.outputs import TextScheduledResponse, TextSentResponse
from gateway.messages.schemas import SendTextRequest
from gateway.models import DeviceModel
from gateway.web import idempotency
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, answers
from gateway.web.idempotency import IdempotencyKey

router = APIRouter(tags=["messages"])

IN_PROGRESS_MARGIN_SECONDS = 5.0
"""A request ends within the hold limit plus this; a record left in progress longer is stale."""


@router.post(
    "/send/text",
    response_model=None,
    responses={
        200: {"model": TextSentResponse, "description": "Sent while the request was held"},
        202: {
            "model": TextScheduledResponse,
            "description": "Scheduled: it goes out after the hold limit, from the device's outbox",
        },
        **answers(
            AUTHENTICATED, WITH_BODY, ACTING_DEVICE_ERRORS, sending.SEND_ERRORS, idempotency.IDEMPOTENT_ERRORS
        ),
    },
)
def send_text(
    body: SendTextRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Send a text message; the answer waits for its dispatch, up to the hold limit."""
    hold = get_settings().send_hold_seconds
    answer = idempotency.once(
        idempotency_key,
        scope=(device.tenant_id, device.device_id),
        operation="send_text",
        request=body.model_dump(mode="json", by_alias=True),
        run=lambda: sending.send_text(device, body, hold_seconds=hold),
        in_progress_seconds=hold + IN_PROGRESS_MARGIN_SECONDS,
        now=lambda bound: sending.state_now(device, bound),
    )
    return answer.response()
