"""Media and rich send routes: POST /send/{image,video,audio,document,sticker,location,contact,template}.

Each answers as POST /send/text (200 sent, 202 scheduled, the same errors and
``Idempotency-Key``), through the one send path (:func:`gateway.messages.sending.send`);
what differs is the content, checked by :mod:`gateway.messages.send_kinds`.
"""

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from gateway.config import get_settings
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.media.kinds import Kind
from gateway.messages import send_kinds, sending
from gateway.messages.outputs import TextScheduledResponse, TextSentResponse
from gateway.messages.schemas import (
    SendAudioRequest,
    SendContactRequest,
    SendDocumentRequest,
    SendLocationRequest,
    SendMediaRequest,
    SendPollRequest,
    SendTemplateRequest,
)
from gateway.messages.send_kinds import Message
from gateway.models import DeviceModel
from gateway.web import idempotency
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, answers
from gateway.web.idempotency import IdempotencyKey
from messages_api.send_routes import IN_PROGRESS_MARGIN_SECONDS

router = APIRouter(tags=["messages"])

RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": TextSentResponse, "description": "Sent while the request was held"},
    202: {
        "model": TextScheduledResponse,
        "description": "Scheduled: it goes out after the hold limit, from the device's outbox",
    },
    **answers(
        AUTHENTICATED, WITH_BODY, ACTING_DEVICE_ERRORS, sending.SEND_ERRORS, idempotency.IDEMPOTENT_ERRORS
    ),
}


SendRequest = (
    SendMediaRequest | SendLocationRequest | SendContactRequest | SendTemplateRequest | SendPollRequest
)


def send_once(
    operation: str,
    body: SendRequest,
    device: DeviceModel,
    key: str | None,
    content: Callable[[], Message],
) -> JSONResponse:
    """Check the content, send it through the one path, once per ``Idempotency-Key``."""
    hold = get_settings().send_hold_seconds

    def run() -> idempotency.StoredResponse:
        return sending.send(device, body, content(), hold_seconds=hold)

    answer = idempotency.once(
        key,
        scope=(device.tenant_id, device.device_id),
        operation=operation,
        request=body.model_dump(mode="json", by_alias=True),
        run=run,
        in_progress_seconds=hold + IN_PROGRESS_MARGIN_SECONDS,
        now=lambda bound: sending.state_now(device, bound),
    )
    return answer.response()


def _media(kind: Kind, body: SendMediaRequest, device: DeviceModel, key: str | None) -> JSONResponse:
    return send_once(f"send_{kind}", body, device, key, lambda: send_kinds.media(kind, body))


@router.post("/send/image", response_model=None, responses=RESPONSES)
def send_image(
    body: SendMediaRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Send an image (JPEG, PNG, GIF or WebP) with an optional caption."""
    return _media("image", body, device, idempotency_key)


@router.post("/send/video", response_model=None, responses=RESPONSES)
def send_video(
    body: SendMediaRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Send a video (MP4 or 3GP) with an optional caption."""
    return _media("video", body, device, idempotency_key)


@router.post("/send/audio", response_model=None, responses=RESPONSES)
def send_audio(
    body: SendAudioRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Send audio (OGG/Opus, MP3, M4A, AAC or AMR); ``ptt`` sends it as a voice note."""
    return _media("audio", body, device, idempotency_key)


@router.post("/send/document", response_model=None, responses=RESPONSES)
def send_document(
    body: SendDocumentRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Send a file of any type, shown under ``filename``."""
    return _media("document", body, device, idempotency_key)


@router.post("/send/sticker", response_model=None, responses=RESPONSES)
def send_sticker(
    body: SendMediaRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Send a sticker: a WebP, or a PNG or JPEG the gateway converts to a 512 x 512 WebP."""
    return _media("sticker", body, device, idempotency_key)


@router.post("/send/location", response_model=None, responses=RESPONSES)
def send_location(
    body: SendLocationRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Send a place: coordinates, and optionally its name and address."""
    return send_once("send_location", body, device, idempotency_key, lambda: send_kinds.location(body))


@router.post("/send/contact", response_model=None, responses=RESPONSES)
def send_contact(
    body: SendContactRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Share a contact (a vCard with a name and a phone number)."""
    return send_once("send_contact", body, device, idempotency_key, lambda: send_kinds.contact(body))


@router.post("/send/template", response_model=None, responses=RESPONSES)
def send_template(
    body: SendTemplateRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Send a text with 1 to 3 quick-reply buttons (501 UNSUPPORTED_OPERATION on neonize)."""
    return send_once("send_template", body, device, idempotency_key, lambda: send_kinds.template(body))
