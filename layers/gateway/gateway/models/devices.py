"""Devices: one messaging session each, owned by a user of a tenant."""

from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from gateway.models.base import GatewayModel, table_meta


class DeviceModel(GatewayModel):
    Meta = table_meta("devices_table")

    tenant_id = UnicodeAttribute(hash_key=True)
    device_id = UnicodeAttribute(range_key=True)
    owner_user_id = UnicodeAttribute()
    name = UnicodeAttribute()
    status = UnicodeAttribute(default="not_ready")
    is_connected = BooleanAttribute(default=False)
    is_logged_in = BooleanAttribute(default=False)
    messaging_jid = UnicodeAttribute(null=True)
    # Written by the session host that runs the device (its command queue), cleared when it
    # stops running it; commands for the device go there, else to the shared command queue.
    host_queue_url = UnicodeAttribute(null=True)
    # Set by a successful connect, cleared by disconnect/logout: hosts restore and take over
    # only devices that are logged in and meant to be connected.
    wants_connection = BooleanAttribute(default=False)
    # When the owner's pending webhook URL stopped applying to this device: at its first
    # connection without a webhook configuration (the URL, if any, was applied then), or
    # when it got a configuration of its own. Set once; see ``gateway.webhooks.pending``.
    pending_webhook_settled_at = UnicodeAttribute(null=True)
    # Dispatches of the device's sends are at least this far apart (absent: 0; set by the API).
    min_send_interval_seconds = NumberAttribute(null=True)
    created_at = UnicodeAttribute()
    updated_at = UnicodeAttribute()
