"""Webhook routes: the configuration of the request's device, the caller's pending URL, and the
device's delivery log with redelivery.

Every role may use them, for the authenticated device: the ``X-Device-Id`` header's device
(one the caller can see), else the caller's only device.
"""

from typing import Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse

from gateway.accounts.roles import Principal
from gateway.devices.dependencies import authenticated_device
from gateway.models import DeviceModel
from gateway.pagination import PageRequest, page_request
from gateway.web.auth import current_principal
from gateway.webhooks import delivery_log, service
from gateway.webhooks.catalog import SUBSCRIBABLE
from gateway.webhooks.delivery.constants import AttemptStatus
from gateway.webhooks.schemas import PendingWebhookRequest, WebhookRequest

router = APIRouter(tags=["webhooks"])


@router.post(
    "/webhook",
    status_code=201,
    response_description="Created: the device had no configuration",
    responses={200: {"description": "Updated: the device had a configuration, now changed"}},
)
def configure_webhook(
    body: WebhookRequest, device: DeviceModel = Depends(authenticated_device)
) -> JSONResponse:
    webhook, created = service.configure(device, body)
    message = "Webhook configured" if created else "Webhook updated"
    return JSONResponse(
        {"success": True, "message": message, "webhook": webhook}, status_code=201 if created else 200
    )


@router.get("/webhook")
def get_webhook(device: DeviceModel = Depends(authenticated_device)) -> dict[str, Any]:
    return {"success": True, "webhook": service.get(device)}


@router.get("/webhook/events")
def webhook_events(_caller: Principal = Depends(current_principal)) -> dict[str, Any]:
    return {"success": True, "events": list(SUBSCRIBABLE)}


@router.delete("/webhook")
def delete_webhook(device: DeviceModel = Depends(authenticated_device)) -> dict[str, Any]:
    service.delete(device)
    return {"success": True, "message": "Webhook deleted"}


@router.post("/user/webhook")
def set_pending_webhook(
    body: PendingWebhookRequest, caller: Principal = Depends(current_principal)
) -> dict[str, Any]:
    data = service.set_pending_url(caller, body)
    message = "Webhook URL saved; it is applied with every event to each new device when it first connects"
    return {"success": True, "message": message, "data": data}


@router.get("/webhook/deliveries")
def list_deliveries(
    device: DeviceModel = Depends(authenticated_device),
    paging: PageRequest = Depends(page_request),
    status: AttemptStatus | None = Query(default=None, description="only attempts with this outcome"),
) -> dict[str, Any]:
    page = delivery_log.recent_attempts(device, paging, status)
    return {"success": True, "deliveries": page.items, "next": page.next}


@router.post("/webhook/deliveries/{event_id}/redeliver", status_code=202)
def redeliver(event_id: str, device: DeviceModel = Depends(authenticated_device)) -> dict[str, Any]:
    return {
        "success": True,
        "message": "Event queued for redelivery",
        **delivery_log.redeliver(device, event_id),
    }
