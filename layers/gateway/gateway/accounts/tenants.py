"""Platform operations on tenants: registration, listing, limits, deletion."""

from __future__ import annotations

import uuid
from functools import partial
from typing import Any

from gateway.accounts import store
from gateway.accounts.records import new_user
from gateway.accounts.roles import Role
from gateway.accounts.views import tenant_view, tenant_with_counts, user_view
from gateway.context_pool import ContextThreadPool
from gateway.devices import commands as device_commands
from gateway.devices import erasure
from gateway.devices import store as device_store
from gateway.errors import conflict, not_found
from gateway.failures.codes import ErrorCode
from gateway.models import TenantModel
from gateway.observability import logger
from gateway.pagination import Page, PageRequest
from gateway.timestamps import iso_utc
from gateway.webhooks import store as webhook_store
from gateway.webhooks.service import checked_webhook_url

_PARALLEL_DEVICE_DELETIONS = 8  # each device's records are a few calls; run several at once


def register(
    tenant_name: str, email: str, password: str, webhook_url: str | None, max_devices: int | None = None
) -> dict[str, Any]:
    """Create a tenant and its first user, always an admin; answer with the only copy of the token.

    ``tenant_name`` comes stripped of whitespace by the request model; ``max_devices`` None
    is no limit.
    """
    if webhook_url is not None:
        checked_webhook_url(webhook_url)
    now = iso_utc()
    tenant = TenantModel(
        str(uuid.uuid4()),
        name=tenant_name,
        users_count=1,
        devices_count=0,
        max_devices=max_devices,
        created_at=now,
        updated_at=now,
    )
    created = new_user(tenant.tenant_id, email, password, Role.ADMIN, webhook_url, now)
    admin = created.user
    try:
        store.create_tenant_with_admin(tenant, admin, created.token_record)
    except store.UniqueValueTaken:
        raise conflict(
            ErrorCode.TENANT_EXISTS, "tenant already exists; contact the administrator to be added to it"
        ) from None
    logger.info("tenant registered", extra={"tenant_id": tenant.tenant_id})
    return {
        "user": user_view(admin),
        "tenant": tenant_view(tenant),
        "token": created.token,
        "webhook_configured": webhook_url is not None,
        "webhook_url": webhook_url,
        "note": _registration_note(webhook_url),
    }


def _registration_note(webhook_url: str | None) -> str:
    note = "Keep the token safe: it is the admin's permanent credential and is not shown again."
    if webhook_url:
        note += " The webhook URL is applied, subscribed to every event, when the first device connects."
    return note


def list_tenants(request: PageRequest) -> Page[dict[str, Any]]:
    """A page of every tenant with its counts, read from the tenants table alone."""
    return store.tenants_page(request).map(tenant_with_counts)


def get_tenant(tenant_id: str) -> dict[str, Any]:
    return tenant_with_counts(_existing(tenant_id))


def set_limits(tenant_id: str, max_devices: int | None) -> dict[str, Any]:
    """Set the tenant's device limit (None: none); the tenant with its counts."""
    tenant = store.set_max_devices(tenant_id, max_devices, iso_utc())
    if tenant is None:
        raise not_found(ErrorCode.TENANT_NOT_FOUND, "tenant not found")
    logger.info("tenant limits changed", extra={"tenant_id": tenant_id, "max_devices": max_devices})
    return tenant_with_counts(tenant)


def _existing(tenant_id: str) -> TenantModel:
    tenant = store.get_tenant(tenant_id)
    if tenant is None:
        raise not_found(ErrorCode.TENANT_NOT_FOUND, "tenant not found")
    return tenant


def delete_tenant(tenant_id: str) -> dict[str, int]:
    """Delete a tenant and everything it owns, within the function's time whatever its size.

    The devices' sessions are stopped (and unlinked) first, all at once through the session
    hosts and under one deadline (the command timeout, 10 s): if a host does not answer for
    one of them, the deletion stops there with 503 and no record is deleted yet. Then the
    users' access ends (tokens first, in batches), then the webhook configurations (delivery
    stops at once), the devices with all their data (delivery logs, sends, media, leases:
    several devices at a time), a sweep of the tenant's media and ``Idempotency-Key``
    records, and the tenant record last, so a deletion interrupted half-way can simply be
    repeated.
    """
    tenant = _existing(tenant_id)
    device_commands.stop_all_for_deletion(device_store.list_devices(tenant_id))
    users = store.list_users(tenant_id)
    store.delete_users(users)
    webhooks = webhook_store.delete_tenant_configs(tenant_id)
    devices = device_store.list_devices(tenant_id)
    with ContextThreadPool(max_workers=_PARALLEL_DEVICE_DELETIONS) as pool:
        list(pool.map(partial(device_store.delete_device_records, idempotency_records=False), devices))
    erasure.erase_tenant_data(tenant_id)
    store.delete_tenant_record(tenant)
    logger.info(
        "tenant deleted",
        extra={"tenant_id": tenant_id, "users": len(users), "devices": len(devices), "webhooks": webhooks},
    )
    return {"users": len(users), "devices": len(devices), "webhooks": webhooks}
