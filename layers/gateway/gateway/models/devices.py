"""Devices: one messaging session each, owned by a user of a tenant."""

from __future__ import annotations

import zlib

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, IncludeProjection

from gateway.models.base import GatewayModel, table_meta

RESTORE_SHARDS = 8
"""Partition keys of the ``restorable`` index (``"0"`` .. ``"7"``). Several, not one, so the
index's writes (a device entering or leaving it) spread over partitions instead of throttling
one, which would throttle the table's writes too. Readers query every shard; changing the
number means rewriting ``restore_shard`` on every item in the index."""


def restore_shard(device_id: str, *, wants_connection: bool, is_logged_in: bool) -> str | None:
    """The device's ``restore_shard``: present (so the device is in the ``restorable`` index)
    exactly while it is wanted connected and logged in, the devices session hosts restore."""
    if not (wants_connection and is_logged_in):
        return None
    return str(zlib.crc32(device_id.encode()) % RESTORE_SHARDS)


class RestorableIndex(GlobalSecondaryIndex["DeviceModel"]):
    """The devices hosts restore and take over (sparse: only items with a ``restore_shard``),
    so a host's periodic pass reads those, not the devices that are off; with the queue of the
    host that runs each, so the pass skips the devices of live hosts without reading them."""

    class Meta:
        index_name = "restorable"
        projection = IncludeProjection(["host_queue_url"])

    restore_shard = UnicodeAttribute(hash_key=True)
    device_id = UnicodeAttribute(range_key=True)


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
    # Follows wants_connection and is_logged_in (see ``restore_shard``); written by the
    # session host's record writes (``session_host.records``), the only writer of the two.
    restore_shard = UnicodeAttribute(null=True)
    # When the owner's pending webhook URL stopped applying to this device: at its first
    # connection without a webhook configuration (the URL, if any, was applied then), or
    # when it got a configuration of its own. Set once; see ``gateway.webhooks.pending``.
    pending_webhook_settled_at = UnicodeAttribute(null=True)
    # Dispatches of the device's sends are at least this far apart (absent: 0; set by the API).
    min_send_interval_seconds = NumberAttribute(null=True)
    # Calls (set by the API, read by the session host at each call offer): every incoming call
    # is rejected at once, and the caller gets ``reject_calls_message`` when it is set.
    reject_calls = BooleanAttribute(null=True)
    reject_calls_message = UnicodeAttribute(null=True)
    # The proxy the device's network connection goes through (``gateway.devices.proxies``),
    # credentials included; read by the session host at each connect, shown only redacted.
    proxy_url = UnicodeAttribute(null=True)
    # The last reason the session could not reach or stay on the network (cleared when it
    # connects) and when the session host tries next; written by the host from its
    # ``connection.*`` events (``session_host.records.event_changes``).
    last_error_code = UnicodeAttribute(null=True)
    last_error_message = UnicodeAttribute(null=True)
    last_error_at = UnicodeAttribute(null=True)
    reconnect_at = UnicodeAttribute(null=True)
    # The sending policy (set by the API; ``gateway.devices.sending_policy``, absent: off).
    daily_send_limit = NumberAttribute(null=True)
    new_chat_daily_limit = NumberAttribute(null=True)
    warmup_days = NumberAttribute(null=True)
    send_jitter_seconds = NumberAttribute(null=True)
    # Where the policy stands, written by the session host: when the device last paired (the
    # warm-up counts from it), until when its new-chat sends pause after the network's rate
    # refusal, and what it sent on ``usage_day`` (UTC, YYYY-MM-DD).
    paired_at = UnicodeAttribute(null=True)
    sending_paused_until = UnicodeAttribute(null=True)
    usage_day = UnicodeAttribute(null=True)
    usage_sent = NumberAttribute(null=True)
    usage_new_chats = NumberAttribute(null=True)
    created_at = UnicodeAttribute()
    updated_at = UnicodeAttribute()

    restorable = RestorableIndex()
