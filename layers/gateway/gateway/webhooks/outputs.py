"""Response bodies of the webhook routes, in the shapes ``gateway.webhooks.views`` builds.
The secret is never in them: a configuration says only whether it has one."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gateway.web.fields import Timestamp, Uuid
from gateway.web.outputs import NextCursor, OutputModel, Succeeded
from gateway.webhooks.delivery.constants import AttemptStatus


class Webhook(OutputModel):
    id: Uuid
    webhook_url: str
    enabled_events: list[str] = Field(description="As subscribed, aliases kept, in catalog order")
    enabled: bool
    retry_attempts: int
    timeout: int = Field(description="Seconds each attempt may take")
    headers: dict[str, str] = Field(description="The custom headers sent with every attempt")
    has_secret: bool = Field(description="Whether deliveries are signed; the secret is never shown")
    created_at: Timestamp
    updated_at: Timestamp


class WebhookSavedResponse(Succeeded):
    message: str
    webhook: Webhook


class WebhookResponse(Succeeded):
    webhook: Webhook


class WebhookDeletedResponse(Succeeded):
    message: str


class EventsResponse(Succeeded):
    events: list[str] = Field(description="Every name `enabled_events` accepts, aliases last")


class PendingWebhook(OutputModel):
    webhook_url: str
    available_events: list[str]
    events_count: int


class PendingWebhookResponse(Succeeded):
    message: str
    data: PendingWebhook


class DeliveryAttempt(OutputModel):
    id: str = Field(description="The event's id, as in the envelope")
    event: str
    attempt: int | None
    status: AttemptStatus
    status_code: int | None = Field(description="The receiver's HTTP status; null when none came")
    duration_ms: int | None
    error: str | None
    webhook_url: str | None
    attempted_at: Timestamp | None


class DeliveryListResponse(Succeeded):
    deliveries: list[DeliveryAttempt] = Field(description="Newest first")
    next: NextCursor = None


class RedeliveryResponse(Succeeded):
    message: str
    id: str = Field(description="The event's id, kept on redelivery")
    event: str
    status: Literal["queued"]
