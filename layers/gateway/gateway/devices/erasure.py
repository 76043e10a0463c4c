"""What is stored for a device besides its record, deleted with it (decisions, "Hostile
conditions": deletion that deletes).

Keyed by the device, each deleted at once by its owner module: the webhook configuration
and delivery log (``webhooks.store``), the sends (``messages.outbox``: the outbox is also
the record of what the device sent, message text included, kept up to 90 days otherwise),
the chats it wrote to or heard from (``devices.known_chats``), the media sent and received
(``media.store``, kept 30 days otherwise), the envelopes too
large for a queue message (``webhooks.claim_check``, 30 days otherwise), the lease
(``leases``: a dead host's is never cleared by the TTL) and the ``Idempotency-Key`` records
(``web.idempotency``, 24 h otherwise). The session's own files (credentials, the network
library's store) are deleted by the session host when it stops the session for the
deletion. Once the record is gone, the sends and media are swept again
(:func:`sweep_late_writes`): a send request that had found the device before may still have
written. A tenant's deletion also sweeps its media prefix and its idempotency records once
for all its devices (:func:`erase_tenant_data`), after the devices' records are gone.
"""

from __future__ import annotations

from gateway import leases
from gateway.devices import known_chats
from gateway.media import store as media_store
from gateway.messages import outbox
from gateway.observability import logger
from gateway.web import idempotency
from gateway.webhooks import claim_check
from gateway.webhooks import store as webhook_store


def erase_device_data(tenant_id: str, device_id: str, *, idempotency_records: bool = True) -> None:
    """Delete everything keyed by the device but its record (the caller deletes that last, so
    an erasure that fails half-way can simply be repeated). ``idempotency_records`` False
    leaves them to the tenant's sweep (one scan for all its devices)."""
    webhook_store.delete_config(tenant_id, device_id)
    webhook_store.delete_delivery_log(device_id)
    sends = outbox.delete_device_sends(tenant_id, device_id)
    chats = known_chats.delete_device_chats(tenant_id, device_id)
    media = media_store.delete_all(tenant_id, device_id)
    envelopes = claim_check.delete_all(tenant_id, device_id)
    leases.forget(device_id)
    records = idempotency.forget(tenant_id, device_id) if idempotency_records else 0
    logger.info(
        "device data erased",
        extra={
            "tenant_id": tenant_id,
            "device_id": device_id,
            "sends": sends,
            "chats": chats,
            "media": media,
            "envelopes": envelopes,
            "keys": records,
        },
    )


def sweep_late_writes(tenant_id: str, device_id: str) -> None:
    """Once the device record is gone (so no new request can find the device), delete again
    what a request already past its device check may have written meanwhile: a send, or the
    media it stored first (and an event the session host published as it stopped)."""
    sends = outbox.delete_device_sends(tenant_id, device_id)
    media = media_store.delete_all(tenant_id, device_id) + claim_check.delete_all(tenant_id, device_id)
    if sends or media:
        logger.warning(
            "writes of a deleted device swept",
            extra={"tenant_id": tenant_id, "device_id": device_id, "sends": sends, "media": media},
        )


def erase_tenant_data(tenant_id: str) -> None:
    """Sweep what is keyed by the tenant's prefix: its media (stored envelopes included) and
    its idempotency records."""
    media = media_store.delete_all(tenant_id) + claim_check.delete_all(tenant_id)
    records = idempotency.forget(tenant_id)
    logger.info("tenant data swept", extra={"tenant_id": tenant_id, "media": media, "keys": records})
