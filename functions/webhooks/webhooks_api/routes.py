"""Webhook routes: the configuration of the request's device, the caller's pending URL, and the
device's delivery log with redelivery.

Every role may use them, for the authenticated device: the ``X-Device-Id`` header's device
(one the caller can see), else the caller's only device.
"""

from fastapi import APIRouter, Depends, Query, Response

from gateway.accounts.roles import Principal
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.failures.codes import ErrorCode
from gateway.models import DeviceModel
from gateway.pagination import PageRequest, page_request
from gateway.web.auth import current_principal
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, WITH_PARAMETERS, answers, standard
from gateway.webhooks import delivery_log, service
from gateway.webhooks.catalog import SUBSCRIBABLE
from gateway.webhooks.delivery.constants import AttemptStatus
from gateway.webhooks.outputs import (
    DeliveryListResponse,
    EventsResponse,
    PendingWebhookResponse,
    RedeliveryResponse,
    WebhookDeletedResponse,
    WebhookResponse,
    WebhookSavedResponse,
)
from gateway.webhooks.schemas import PendingWebhookRequest, WebhookRequest

router = APIRouter(tags=["webhooks"])

DEVICE_WEBHOOK = (AUTHENTICATED, ACTING_DEVICE_ERRORS)
NOT_CONFIGURED = standard(404, ErrorCode.WEBHOOK_NOT_CONFIGURED)


@router.post(
    "/webhook",
    status_code=201,
    response_description="Created: the device had no configuration",
    responses={
        200: {
            "model": WebhookSavedResponse,
            "description": "Updated: the device had a configuration, now changed",
        },
        **answers(DEVICE_WEBHOOK, WITH_BODY, standard(409, ErrorCode.CONFLICT)),
    },
)
def configure_webhook(
    body: WebhookRequest, response: Response, device: DeviceModel = Depends(authenticated_device)
) -> WebhookSavedResponse:
    webhook, created = service.configure(device, body)
    response.status_code = 201 if created else 200
    return WebhookSavedResponse(
        message="Webhook configured" if created else "Webhook updated", webhook=webhook
    )


@router.get("/webhook", responses=answers(DEVICE_WEBHOOK, NOT_CONFIGURED))
def get_webhook(device: DeviceModel = Depends(authenticated_device)) -> WebhookResponse:
    return WebhookResponse(webhook=service.get(device))


@router.get("/webhook/events", responses=answers(AUTHENTICATED))
def webhook_events(_caller: Principal = Depends(current_principal)) -> EventsResponse:
    return EventsResponse(events=list(SUBSCRIBABLE))


@router.delete("/webhook", responses=answers(DEVICE_WEBHOOK, NOT_CONFIGURED))
def delete_webhook(device: DeviceModel = Depends(authenticated_device)) -> WebhookDeletedResponse:
    service.delete(device)
    return WebhookDeletedResponse(message="Webhook deleted")


@router.post("/user/webhook", responses=answers(AUTHENTICATED, WITH_BODY))
def set_pending_webhook(
    body: PendingWebhookRequest, caller: Principal = Depends(current_principal)
) -> PendingWebhookResponse:
    data = service.set_pending_url(caller, body)
    message = "Webhook URL saved; it is applied with every event to each new device when it first connects"
    return PendingWebhookResponse(message=message, data=data)


@router.get("/webhook/deliveries", responses=answers(DEVICE_WEBHOOK, WITH_PARAMETERS))
def list_deliveries(
    device: DeviceModel = Depends(authenticated_device),
    paging: PageRequest = Depends(page_request),
    status: AttemptStatus | None = Query(default=None, description="only attempts with this outcome"),
) -> DeliveryListResponse:
    page = delivery_log.recent_attempts(device, paging, status)
    return DeliveryListResponse(deliveries=page.items, next=page.next)


@router.post(
    "/webhook/deliveries/{event_id}/redeliver",
    status_code=202,
    responses=answers(
        DEVICE_WEBHOOK,
        NOT_CONFIGURED,
        standard(404, ErrorCode.EVENT_NOT_FOUND),
        standard(409, ErrorCode.WEBHOOK_DISABLED, ErrorCode.EVENT_NOT_SUBSCRIBED),
    ),
)
def redeliver(event_id: str, device: DeviceModel = Depends(authenticated_device)) -> RedeliveryResponse:
    return RedeliveryResponse(
        message="Event queued for redelivery", **delivery_log.redeliver(device, event_id)
    )
