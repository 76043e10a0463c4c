"""Webhook configurations (one per device) and the delivery log."""

from __future__ import annotations

from pynamodb.attributes import (
    BooleanAttribute,
    MapAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
)

from gateway.models.base import GatewayModel, table_meta


class WebhookModel(GatewayModel):
    """A device's webhook configuration. ``secret`` is stored (it signs) and never shown."""

    Meta = table_meta("webhooks_table")

    tenant_id = UnicodeAttribute(hash_key=True)
    device_id = UnicodeAttribute(range_key=True)
    webhook_id = UnicodeAttribute()
    webhook_url = UnicodeAttribute()
    enabled_events = UnicodeSetAttribute()  # as given (aliases kept); expanded when delivering
    enabled = BooleanAttribute(default=True)
    retry_attempts = NumberAttribute(default=3)
    timeout = NumberAttribute(default=10)
    secret = UnicodeAttribute(null=True)
    headers = MapAttribute[str, str](default=dict)  # type: ignore[no-untyped-call]  # PynamoDB: no types
    # Epoch seconds until which its events go to the slow lane (docs/delivery.md), or unset.
    slow_until = NumberAttribute(null=True)
    created_at = UnicodeAttribute()
    updated_at = UnicodeAttribute()


class DeliveryModel(GatewayModel):
    """The delivery log of a device, two kinds of items under its ``device_id``:

    * ``event#<event id>``: one per event, its envelope (unsigned JSON), ``tenant_id`` and
      final ``status`` (``delivered``, ``failed``, or ``pending`` while retrying): what
      redelivery sends again;
    * ``attempt#<epoch ms, 13 digits>#<event id>#<attempt, 2 digits>``: one per attempt, so a
      Query on the prefix, descending, lists the recent attempts newest first.

    Both expire (``expires_at``, TTL) after the retention period.
    """

    Meta = table_meta("deliveries_table")

    device_id = UnicodeAttribute(hash_key=True)
    delivery_key = UnicodeAttribute(range_key=True)
    tenant_id = UnicodeAttribute()
    event_id = UnicodeAttribute()
    event = UnicodeAttribute()
    status = UnicodeAttribute()
    attempt = NumberAttribute(null=True)
    status_code = NumberAttribute(null=True)
    duration_ms = NumberAttribute(null=True)
    error = UnicodeAttribute(null=True)
    webhook_url = UnicodeAttribute(null=True)
    envelope = UnicodeAttribute(null=True)
    attempted_at = UnicodeAttribute(null=True)
    expires_at = NumberAttribute()
