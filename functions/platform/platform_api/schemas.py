"""Request bodies of the platform routes."""

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from gateway.web.deferred import DeferredModel
from gateway.web.fields import Email, NonBlank
from gateway.webhooks.schemas import OptionalWebhookUrl

TenantName = Annotated[NonBlank, StringConstraints(max_length=100)]
MaxDevices = Annotated[
    int | None,
    Field(
        ge=0,
        le=1_000_000,
        description="How many devices the tenant may have (0 to 1,000,000); null: no limit. POST /devices "
        "beyond it is 403 `DEVICE_QUOTA_EXCEEDED`",
    ),
]


class RegisterRequest(DeferredModel):
    tenant_name: TenantName = Field(description="Unique on the platform, compared case-insensitively")
    email: Email
    password: str = Field(min_length=6, max_length=1024)
    role: Literal["admin"] = "admin"
    webhook_url: OptionalWebhookUrl = None
    max_devices: MaxDevices = None


class UpdateTenantRequest(DeferredModel):
    """PATCH /global/tenants/{tenant_id}: the tenant's limits (master token only, so no tenant
    changes its own)."""

    max_devices: MaxDevices
