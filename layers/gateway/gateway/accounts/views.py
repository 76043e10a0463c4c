"""Public shapes of tenants and users. No view ever carries a token or password hash."""

from __future__ import annotations

from typing import Any

from gateway.models import TenantModel, UserModel


def tenant_view(tenant: TenantModel) -> dict[str, Any]:
    return {
        "id": tenant.tenant_id,
        "name": tenant.name,
        "max_devices": int(tenant.max_devices) if tenant.max_devices is not None else None,
        "created_at": tenant.created_at,
        "updated_at": tenant.updated_at,
    }


def tenant_with_counts(tenant: TenantModel) -> dict[str, Any]:
    """What the platform routes show of a tenant: the Tenant fields and its counts."""
    return {
        **tenant_view(tenant),
        "users_count": int(tenant.users_count or 0),
        "devices_count": int(tenant.devices_count or 0),
    }


def user_view(user: UserModel) -> dict[str, Any]:
    return {
        "id": user.user_id,
        "tenant_id": user.tenant_id,
        "email": user.email,
        "role": user.role,
        "active": user.active,
        "created_at": user.created_at,
        "updated_at": user.updated_at,
    }
