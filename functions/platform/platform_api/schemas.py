"""Request bodies of the platform routes."""

from typing import Literal

from pydantic import Field

from gateway.web.deferred import DeferredModel
from gateway.web.fields import Email, non_blank
from gateway.webhooks.schemas import OptionalWebhookUrl

TenantName = non_blank(100)


class RegisterRequest(DeferredModel):
    tenant_name: TenantName = Field(description="Unique on the platform, compared case-insensitively")
    email: Email
    password: str = Field(min_length=6, max_length=1024)
    role: Literal["admin"] = "admin"
    webhook_url: OptionalWebhookUrl = None
