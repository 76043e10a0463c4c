"""User management inside one tenant."""

from __future__ import annotations

from typing import Any

from gateway.accounts import store
from gateway.accounts.records import new_user
from gateway.accounts.roles import Principal, Role, check_user_update
from gateway.accounts.views import tenant_view, user_view
from gateway.devices.access import visible_devices
from gateway.devices.views import device_summary
from gateway.errors import conflict, insufficient_permissions, invalid_token, not_found
from gateway.failures.codes import ErrorCode
from gateway.models import UserModel
from gateway.models.base import TenantGone
from gateway.pagination import Page, PageRequest
from gateway.timestamps import iso_utc
from gateway.webhooks.service import checked_webhook_url


def create_user(
    caller: Principal, email: str, password: str, role: Role, webhook_url: str | None
) -> dict[str, Any]:
    """A new user in the caller's tenant; the response is the only place its token appears."""
    if webhook_url is not None:
        checked_webhook_url(webhook_url)
    created = new_user(caller.tenant_id, email, password, role, webhook_url, iso_utc())
    try:
        store.create_user(created.user, created.token_record)
    except store.UniqueValueTaken:
        raise conflict(ErrorCode.USER_EXISTS, "a user with this email exists in the tenant") from None
    except TenantGone:  # deleted after the caller's token was read
        raise invalid_token() from None
    return {**user_view(created.user), "token": created.token}


def list_users(caller: Principal, request: PageRequest) -> Page[dict[str, Any]]:
    """A page of the caller's tenant's users, by id."""
    return store.users_page(caller.tenant_id, request).map(user_view)


def get_user(caller: Principal, user_id: str) -> dict[str, Any]:
    if caller.role is Role.USER and user_id != caller.user_id:
        raise insufficient_permissions()
    return user_view(_existing(caller.tenant_id, user_id))


def update_user(caller: Principal, user_id: str, active: bool | None, role: Role | None) -> dict[str, Any]:
    if caller.role is Role.USER:
        raise insufficient_permissions()
    user = _existing(caller.tenant_id, user_id)
    check_user_update(caller, user_id, Role(user.role), active, role)
    new_active = user.active if active is None else active
    new_role = user.role if role is None else role.value
    if (new_active, new_role) != (user.active, user.role):
        now = iso_utc()
        store.update_user_access(user, active=new_active, role=new_role, updated_at=now)
        user.active, user.role, user.updated_at = new_active, new_role, now
    return user_view(user)


def status(caller: Principal) -> dict[str, Any]:
    """GET /status: who the caller is, its tenant, and the devices it can see."""
    user = _existing(caller.tenant_id, caller.user_id)
    tenant = store.get_tenant(caller.tenant_id)
    if tenant is None:  # deleted between the token read and now
        raise invalid_token()
    view = user_view(user)
    return {
        "user": {key: view[key] for key in ("id", "email", "role", "tenant_id", "active")},
        "tenant": {key: tenant_view(tenant)[key] for key in ("id", "name")},
        "devices": [device_summary(device) for device in visible_devices(caller)],
    }


def _existing(tenant_id: str, user_id: str) -> UserModel:
    user = store.get_user(tenant_id, user_id)
    if user is None:
        raise not_found(ErrorCode.USER_NOT_FOUND, "user not found")
    return user
