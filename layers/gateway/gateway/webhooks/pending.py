"""The pending webhook URL of a user (POST /user/webhook, or ``webhook_url`` of POST /register
and POST /users), applied to the user's devices.

A device gets its owner's pending URL, subscribed to every catalog event, when it connects
for the first time without a configuration of its own. The delivery function calls
:func:`apply_pending_webhook` for a ``device.connected`` event of a device without a
configuration, before filtering, so that very event is delivered too.

Each device is *settled* once (``DeviceModel.pending_webhook_settled_at``): at that first
connection, whether a URL was applied or not, or earlier when it is configured with POST
/webhook. A settled device never gets the pending URL, so deleting its configuration does
not bring the URL back at the next reconnection, and a URL set later applies to new devices
only.

The configuration is written first, conditional on there being none, then the device is
settled: of concurrent calls exactly one writes it, and a crash in between leaves a
configuration rather than losing it. Its caller needs, on DynamoDB: GetItem on the devices,
users and webhooks tables, UpdateItem on the devices table, PutItem and DeleteItem on the
webhooks table.
"""

from __future__ import annotations

import uuid

from gateway.accounts import store as accounts_store
from gateway.devices import store as device_store
from gateway.models import WebhookModel
from gateway.observability import logger
from gateway.timestamps import iso_utc
from gateway.webhooks import store
from gateway.webhooks.addresses import UnsafeUrl
from gateway.webhooks.catalog import CATALOG
from gateway.webhooks.schemas import DEFAULT_RETRY_ATTEMPTS, DEFAULT_TIMEOUT_SECONDS
from gateway.webhooks.service import deliverable_url


def apply_pending_webhook(tenant_id: str, device_id: str) -> WebhookModel | None:
    """Create the device's configuration from its owner's pending URL, once per device.

    Returns the new configuration, or None when there is nothing to apply: the device is
    gone or settled already, it has a configuration, its owner has no pending URL, or that
    URL may not be delivered to in this deployment (logged). Safe to call concurrently and
    repeatedly.
    """
    device = device_store.get_device(tenant_id, device_id)
    if device is None or device.pending_webhook_settled_at is not None:
        return None
    now = iso_utc()
    owner = accounts_store.get_user(tenant_id, device.owner_user_id)
    url = owner.pending_webhook_url if owner is not None else None
    if url is not None:
        try:
            deliverable_url(url)
        except UnsafeUrl as error:
            logger.warning(
                "pending webhook URL not applied",
                extra={"tenant_id": tenant_id, "device_id": device_id, "reason": str(error)},
            )
            url = None
    if url is None:
        store.settle(tenant_id, device_id, now, first=True)
        return None
    config = WebhookModel(
        tenant_id,
        device_id,
        webhook_id=str(uuid.uuid4()),
        webhook_url=url,
        enabled_events=set(CATALOG),
        enabled=True,
        retry_attempts=DEFAULT_RETRY_ATTEMPTS,
        timeout=DEFAULT_TIMEOUT_SECONDS,
        secret=None,
        headers={},
        created_at=now,
        updated_at=now,
    )
    if not store.put_config(config, WebhookModel.device_id.does_not_exist()):
        return None  # the device got a configuration meanwhile (another event, POST /webhook)
    if not store.settle(tenant_id, device_id, now, first=True):
        if device_store.get_device(tenant_id, device_id) is None:  # deleted meanwhile: no leftover
            store.delete_config(tenant_id, device_id, config.webhook_id)
            return None
        return store.get_config(tenant_id, device_id)  # settled by POST /webhook, which may have changed it
    logger.info("pending webhook applied", extra={"tenant_id": tenant_id, "device_id": device_id})
    return config
