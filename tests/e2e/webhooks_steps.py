"""Steps the webhook configuration tests share: a request body, configuring a device, waiting."""

from __future__ import annotations

from typing import Any

from waiting import wait_until

__all__ = ["WEBHOOK_FIELDS", "configure", "new_device", "wait_until", "webhook_body"]

WEBHOOK_FIELDS = {
    "id",
    "webhook_url",
    "enabled_events",
    "enabled",
    "retry_attempts",
    "timeout",
    "headers",
    "has_secret",
    "created_at",
    "updated_at",
}


def webhook_body(**overrides: Any) -> dict[str, Any]:
    return {
        "webhook_url": "https://hooks.example.com/gateway",
        "enabled_events": ["message.received"],
        **overrides,
    }


def configure(api: Any, token: str, device_id: str | None = None, **body: Any) -> dict[str, Any]:
    """POST /webhook (for ``device_id`` when given); the stored configuration."""
    headers = {"X-Device-Id": device_id} if device_id else None
    response = api.request("POST", "/webhook", token, json=webhook_body(**body), headers=headers)
    assert response.status_code in (200, 201), response.text
    return response.json()["webhook"]


def new_device(api: Any, token: str) -> str:
    response = api.request("POST", "/devices", token, json={})
    assert response.status_code == 201, response.text
    return response.json()["device"]["id"]
