"""The response models carry the views' JSON exactly: nothing dropped, nothing added, and a view
that grows a field the model lacks fails instead of losing it."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from gateway.accounts.outputs import Tenant, User
from gateway.accounts.views import tenant_view, user_view
from gateway.devices.outputs import Device, DeviceListResponse, DeviceSummary
from gateway.devices.store import new_device
from gateway.devices.views import device_summary, device_view
from gateway.models import DeliveryModel, TenantModel, UserModel, WebhookModel
from gateway.webhooks.outputs import DeliveryAttempt, Webhook
from gateway.webhooks.views import attempt_view, webhook_view

NOW = "2026-01-01T00:00:00.000Z"
TENANT, OWNER = str(uuid.uuid4()), str(uuid.uuid4())


def _views() -> list[tuple[dict[str, Any], type[BaseModel]]]:
    device = new_device(TENANT, OWNER, "Desk", NOW)
    user = UserModel(
        TENANT, OWNER, email="a@b.example.com", role="admin", active=True, password_hash="x",
        token_hash="y", created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    webhook = WebhookModel(
        TENANT, device.device_id, webhook_id=str(uuid.uuid4()), webhook_url="https://hooks.example.com",
        enabled_events={"message", "device.connected"}, secret="s", headers={"X-Token": "t"},
        created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    attempt = DeliveryModel(
        device.device_id, "attempt#1", tenant_id=TENANT, event_id="e1", event="message.received",
        status="failed", attempt=2, status_code=None, duration_ms=31.0, error="timeout",
        webhook_url="https://hooks.example.com", attempted_at=NOW, expires_at=0,
    )  # fmt: skip
    return [
        (device_view(device), Device),
        (device_summary(device), DeviceSummary),
        (tenant_view(TenantModel(TENANT, name="Acme", created_at=NOW, updated_at=NOW)), Tenant),
        (user_view(user), User),
        (webhook_view(webhook), Webhook),
        (attempt_view(attempt), DeliveryAttempt),
    ]


@pytest.mark.parametrize(("view", "model"), _views(), ids=lambda value: getattr(value, "__name__", ""))
def test_a_model_serialises_its_view_unchanged(view: dict[str, Any], model: type[BaseModel]) -> None:
    # When the view goes through its response model, Then the JSON is the view's, key for key
    assert model.model_validate(view).model_dump(mode="json") == view


@pytest.mark.parametrize(("view", "model"), _views(), ids=lambda value: getattr(value, "__name__", ""))
def test_a_view_field_the_model_lacks_is_refused(view: dict[str, Any], model: type[BaseModel]) -> None:
    with pytest.raises(ValidationError, match="extra"):
        model.model_validate({**view, "grown": 1})


def test_a_list_body_adds_only_its_cursor() -> None:
    device = device_view(new_device(TENANT, OWNER, "Desk", NOW))
    body = DeviceListResponse(devices=[device]).model_dump(mode="json")
    assert body == {"success": True, "devices": [device], "next": None}
