"""Status routes: who sees the device's stories, and publishing one.

They act through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and need that device's session connected. The privacy
routes answer their operation's errors in the lowercase envelope and a field that fails
validation in the standard one (decisions, "Sending and status"); the publishing routes
answer like the send routes and take an ``Idempotency-Key`` header.
"""

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from gateway.bus import CommandName
from gateway.config import get_settings
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.failures.codes import ErrorCode
from gateway.failures.table import command_errors
from gateway.messages.outputs import TextScheduledResponse
from gateway.models import DeviceModel
from gateway.status import service
from gateway.status.outputs import StatusPrivacyResponse, StatusPublishedResponse
from gateway.status.schemas import MediaStatusRequest, StatusPrivacyRequest, TextStatusRequest
from gateway.web import idempotency
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, answers, standard
from gateway.web.idempotency import IdempotencyKey

router = APIRouter(tags=["status"])

IN_PROGRESS_MARGIN_SECONDS = 5.0
"""A publish ends within the command timeout plus this; a record left in progress longer is stale."""

PUBLISH_ERRORS = (
    command_errors(CommandName.PUBLISH_STATUS),
    standard(400, ErrorCode.VALIDATION_ERROR),
    standard(409, ErrorCode.SEND_CANCELED),
    idempotency.IDEMPOTENT_ERRORS,
)


@router.get(
    "/status/privacy",
    responses=answers(AUTHENTICATED, ACTING_DEVICE_ERRORS, command_errors(CommandName.GET_STATUS_PRIVACY)),
)
def get_status_privacy(device: DeviceModel = Depends(authenticated_device)) -> StatusPrivacyResponse:
    """Who sees the device's stories: the setting in force on its account."""
    return service.get_privacy(device)


@router.put(
    "/status/privacy",
    responses=answers(
        AUTHENTICATED, WITH_BODY, ACTING_DEVICE_ERRORS, command_errors(CommandName.SET_STATUS_PRIVACY)
    ),
)
def set_status_privacy(
    body: StatusPrivacyRequest, device: DeviceModel = Depends(authenticated_device)
) -> StatusPrivacyResponse:
    """Choose who sees the device's stories; the answer is the setting now in force."""
    return service.set_privacy(device, body)


PUBLISHED: dict[int | str, dict[str, Any]] = {
    200: {"model": StatusPublishedResponse, "description": "Published"},
    202: {
        "model": TextScheduledResponse,
        "description": "Planned (`send_at`): it waits in the device's outbox (GET /sends) until then",
    },
}

PUBLISH_RESPONSES = {**PUBLISHED, **answers(AUTHENTICATED, WITH_BODY, ACTING_DEVICE_ERRORS, PUBLISH_ERRORS)}
"""What each story publish answers."""


@router.post(
    "/status/text",
    response_model=None,
    responses=PUBLISH_RESPONSES,
)
def publish_text_status(
    body: TextStatusRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Publish a text story, with an optional background colour and font."""
    return _once(device, "status_text", body, idempotency_key, lambda: service.publish_text(device, body))


@router.post(
    "/status/image",
    response_model=None,
    responses=PUBLISH_RESPONSES,
)
def publish_image_status(
    body: MediaStatusRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Publish an image story (JPEG, PNG, GIF or WebP) from a url or inline bytes."""
    return _once(
        device, "status_image", body, idempotency_key, lambda: service.publish_media(device, "image", body)
    )


@router.post(
    "/status/video",
    response_model=None,
    responses=PUBLISH_RESPONSES,
)
def publish_video_status(
    body: MediaStatusRequest,
    device: DeviceModel = Depends(authenticated_device),
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Publish a video story (MP4 or 3GP, at most 16 MB) from a url or inline bytes."""
    return _once(
        device, "status_video", body, idempotency_key, lambda: service.publish_media(device, "video", body)
    )


def _once(
    device: DeviceModel,
    operation: str,
    body: BaseModel,
    key: str | None,
    publish: Callable[[], idempotency.StoredResponse],
) -> JSONResponse:
    """``publish()`` once per ``Idempotency-Key``: a repeat gets the first answer (a planned
    one: the state of its send now)."""
    answer = idempotency.once(
        key,
        scope=(device.tenant_id, device.device_id),
        operation=operation,
        request=body.model_dump(mode="json"),
        run=publish,
        in_progress_seconds=get_settings().command_timeout_seconds + IN_PROGRESS_MARGIN_SECONDS,
        now=lambda bound: service.state_now(device, bound),
    )
    return answer.response()
