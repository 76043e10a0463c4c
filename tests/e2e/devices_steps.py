"""What the device modules share: a device's fields, creating one, and listing the ids a caller sees."""

from __future__ import annotations

DEVICE_FIELDS = {
    "id",
    "tenant_id",
    "owner_user_id",
    "name",
    "status",
    "is_connected",
    "is_logged_in",
    "messaging_jid",
    "min_send_interval_seconds",
    "reject_calls",
    "reject_calls_message",
    "daily_send_limit",
    "new_chat_daily_limit",
    "warmup_days",
    "send_jitter_seconds",
    "sending_paused_until",
    "usage_today",
    "proxy_url",
    "last_error",
    "reconnect_at",
    "created_at",
    "updated_at",
}


def create_device(api, token: str, **body: object) -> dict[str, object]:
    response = api.request("POST", "/devices", token, json=body)
    assert response.status_code == 201, response.text
    return response.json()["device"]


def listed_ids(api, token: str) -> list[str]:
    response = api.request("GET", "/devices", token)
    assert response.status_code == 200, response.text
    return [device["id"] for device in response.json()["devices"]]
