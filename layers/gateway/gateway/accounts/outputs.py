"""Response bodies of the platform and user routes, in the shapes ``gateway.accounts.views``
builds. Tokens appear only in the two bodies that create them."""

from __future__ import annotations

from pydantic import Field

from gateway.accounts.roles import Role
from gateway.devices.outputs import DeviceSummary
from gateway.web.fields import Timestamp, Uuid
from gateway.web.outputs import NextCursor, OutputModel, Succeeded


class Tenant(OutputModel):
    id: Uuid
    name: str
    max_devices: int | None = Field(
        description="How many devices the tenant may have (POST /devices beyond it: 403 "
        "`DEVICE_QUOTA_EXCEEDED`); null: no limit. Set by the platform's administrator"
    )
    created_at: Timestamp
    updated_at: Timestamp


class TenantWithCounts(Tenant):
    users_count: int
    devices_count: int


class User(OutputModel):
    id: Uuid
    tenant_id: Uuid
    email: str = Field(description="Lowercased")
    role: Role
    active: bool = Field(description="An inactive user's token is refused")
    created_at: Timestamp
    updated_at: Timestamp


class NewUser(User):
    token: Uuid = Field(description="The user's permanent credential; shown only here")


class RegisterResponse(Succeeded):
    user: User
    tenant: Tenant
    token: Uuid = Field(description="The admin's permanent credential; shown only here")
    webhook_configured: bool
    webhook_url: str | None
    note: str


class TenantListResponse(Succeeded):
    tenants: list[TenantWithCounts]
    next: NextCursor = None


class TenantResponse(Succeeded):
    tenant: TenantWithCounts


class DeletedCounts(OutputModel):
    users: int
    devices: int
    webhooks: int


class TenantDeletedResponse(Succeeded):
    deleted: DeletedCounts


class UserResponse(Succeeded):
    user: User


class NewUserResponse(Succeeded):
    user: NewUser


class UserListResponse(Succeeded):
    users: list[User]
    next: NextCursor = None


class StatusUser(OutputModel):
    id: Uuid
    email: str
    role: Role
    tenant_id: Uuid
    active: bool


class StatusTenant(OutputModel):
    id: Uuid
    name: str


class StatusResponse(Succeeded):
    user: StatusUser
    tenant: StatusTenant
    devices: list[DeviceSummary] = Field(description="The devices the caller can see")
