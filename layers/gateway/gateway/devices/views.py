"""Public shapes of a device. Routing and restore flags (``host_queue_url``,
``wants_connection``) are internal and never shown."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from gateway import clock
from gateway.bus import DeviceSnapshot
from gateway.devices.proxies import redacted
from gateway.devices.sending_policy import SendingPolicy
from gateway.models import DeviceModel

SUMMARY_FIELDS = ("id", "name", "status", "is_connected", "is_logged_in", "messaging_jid")
"""The fields GET /status lists for each device, as the decisions fix them."""


def device_view(device: DeviceModel, snapshot: DeviceSnapshot | None = None) -> dict[str, Any]:
    """The device as the API shows it; ``snapshot`` (the session host's answer to a command)
    is newer than the record, so its session fields win."""
    policy = SendingPolicy.of(device)
    now = clock.now()
    view: dict[str, Any] = {
        "id": device.device_id,
        "tenant_id": device.tenant_id,
        "owner_user_id": device.owner_user_id,
        "name": device.name,
        "status": device.status,
        "is_connected": device.is_connected,
        "is_logged_in": device.is_logged_in,
        "messaging_jid": device.messaging_jid,
        "min_send_interval_seconds": int(device.min_send_interval_seconds or 0),
        "reject_calls": bool(device.reject_calls),
        "reject_calls_message": device.reject_calls_message,
        "daily_send_limit": policy.daily_send_limit,
        "new_chat_daily_limit": policy.new_chat_daily_limit,
        "warmup_days": policy.warmup_days,
        "send_jitter_seconds": policy.send_jitter_seconds,
        "sending_paused_until": device.sending_paused_until if policy.paused(now) else None,
        "usage_today": policy.usage_today(now),
        "proxy_url": redacted(device.proxy_url),
        "last_error": _last_error(device),
        "reconnect_at": device.reconnect_at,
        "created_at": device.created_at,
        "updated_at": device.updated_at,
    }
    if snapshot is not None:
        view.update(asdict(snapshot))
    return view


def _last_error(device: DeviceModel) -> dict[str, str] | None:
    if device.last_error_code is None:
        return None
    return {
        "code": device.last_error_code,
        "message": device.last_error_message or device.last_error_code,
        "at": device.last_error_at or device.updated_at,
    }


def device_summary(device: DeviceModel) -> dict[str, Any]:
    """The short form of :func:`device_view` that GET /status lists."""
    view = device_view(device)
    return {field: view[field] for field in SUMMARY_FIELDS}
