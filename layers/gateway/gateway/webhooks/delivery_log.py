"""The delivery log as the API shows it (GET /webhook/deliveries) and redelivery (POST
/webhook/deliveries/{id}/redeliver).

The delivery function writes the log; this module only reads it, and puts a logged event
back on the events queue. A redelivered event keeps its ``id`` (receivers deduplicate on it)
and goes through delivery like a new one: the current configuration, a fresh attempt count,
the ``enabled_events`` filter. So redelivery is refused up front when that would deliver
nothing: no configuration, a disabled one, or one not subscribed to the event.
"""

from __future__ import annotations

from typing import Any

from gateway.bus.queues import sqs_client
from gateway.config import get_settings
from gateway.errors import conflict, not_found
from gateway.failures.codes import ErrorCode
from gateway.models import DeviceModel
from gateway.observability import logger
from gateway.pagination import Page, PageRequest
from gateway.webhooks import events_queue, store
from gateway.webhooks.catalog import expand
from gateway.webhooks.delivery.constants import AttemptStatus
from gateway.webhooks.service import webhook_not_configured
from gateway.webhooks.views import attempt_view

_MAX_EVENT_ID = 128  # longer ids were never issued: no read is spent on them


def recent_attempts(
    device: DeviceModel, request: PageRequest, status: AttemptStatus | None
) -> Page[dict[str, Any]]:
    """A page of the device's delivery attempts, newest first, only those of ``status`` when given."""
    return store.attempts_page(device.tenant_id, device.device_id, request, status).map(attempt_view)


def redeliver(device: DeviceModel, event_id: str) -> dict[str, Any]:
    """Queue a logged event of the device for delivery again, with the same envelope."""
    logged = (
        store.get_logged_event(device.tenant_id, device.device_id, event_id)
        if 0 < len(event_id) <= _MAX_EVENT_ID
        else None
    )
    if logged is None or not logged.envelope:
        raise not_found(ErrorCode.EVENT_NOT_FOUND, "no event with this id in the device's delivery log")
    if not events_queue.still_kept(logged.envelope, device.tenant_id):
        raise not_found(
            ErrorCode.EVENT_NOT_FOUND, "the event's envelope is no longer kept (30 days after it happened)"
        )
    config = store.get_config(device.tenant_id, device.device_id)
    if config is None:
        raise webhook_not_configured()
    if not config.enabled:
        raise conflict(ErrorCode.WEBHOOK_DISABLED, "the webhook is disabled; enable it to redeliver events")
    if logged.event not in expand(config.enabled_events):
        raise conflict(
            ErrorCode.EVENT_NOT_SUBSCRIBED,
            f"the webhook is not subscribed to {logged.event}; add it to enabled_events",
        )
    sqs_client().send_message(
        QueueUrl=get_settings().events_queue_url,
        MessageBody=logged.envelope,
        MessageAttributes=events_queue.event_attributes(device.tenant_id, logged.event)
        | events_queue.REDELIVERY_ATTRIBUTES,
    )
    logger.info(
        "event queued for redelivery",
        extra={"tenant_id": device.tenant_id, "device_id": device.device_id, "event_id": event_id},
    )
    return {"id": event_id, "event": logged.event, "status": "queued"}
