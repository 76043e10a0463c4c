"""Device operations that are not session commands: create, list, change settings, and delete
(which stops the session first)."""

from __future__ import annotations

from typing import Any

from gateway.accounts.roles import Principal
from gateway.devices import commands, store
from gateway.devices.access import check_can_configure, check_can_delete, device_not_found, visible_owner
from gateway.devices.views import device_view
from gateway.errors import ApiError, invalid_token
from gateway.failures.codes import ErrorCode
from gateway.models import DeviceModel
from gateway.models.base import TenantGone
from gateway.observability import logger
from gateway.pagination import Page, PageRequest
from gateway.timestamps import iso_utc
from gateway.web.error_docs import standard

QUOTA_EXCEEDED = ErrorCode.DEVICE_QUOTA_EXCEEDED
CREATE_ERRORS = (standard(403, QUOTA_EXCEEDED),)
"""What POST /devices answers besides authentication and its body."""


def create_device(caller: Principal, name: str | None) -> dict[str, Any]:
    """A new device of the caller's tenant, owned by the caller, not connected yet; 403
    :data:`QUOTA_EXCEEDED` when the tenant has its ``max_devices`` already."""
    device = store.new_device(caller.tenant_id, caller.user_id, name, iso_utc())
    try:
        store.create_device(device)
    except TenantGone:  # deleted after the caller's token was read
        raise invalid_token() from None
    except store.QuotaReached as reached:
        message = (
            f"the tenant has its {reached.max_devices} devices already (max_devices): delete one, "
            "or ask the platform's administrator to raise the limit"
        )
        raise ApiError(403, QUOTA_EXCEEDED, message) from None
    logger.info("device created", extra={"tenant_id": device.tenant_id, "device_id": device.device_id})
    return device_view(device)


def list_devices(caller: Principal, request: PageRequest) -> Page[dict[str, Any]]:
    """A page of the devices the caller may see, by id."""
    page = store.devices_page(caller.tenant_id, request, owner_user_id=visible_owner(caller))
    return page.map(device_view)


def update_device(caller: Principal, device: DeviceModel, min_send_interval_seconds: int) -> dict[str, Any]:
    """Change the device's settings; its session host reads the send spacing before each
    dispatch, so the change applies from the next send on."""
    check_can_configure(caller, device)
    if not store.set_settings(device, min_send_interval_seconds=min_send_interval_seconds, now=iso_utc()):
        raise device_not_found()  # deleted since it was read
    logger.info(
        "device settings changed",
        extra={"device_id": device.device_id, "min_send_interval_seconds": min_send_interval_seconds},
    )
    return device_view(device)


def delete_device(caller: Principal, device: DeviceModel) -> None:
    """Stop and unlink the device's session, then delete its records.

    Nothing is deleted unless the session host confirmed the stop: on a timeout or a failure
    the device stays as it was and the caller may retry.
    """
    check_can_delete(caller, device)
    commands.stop_for_deletion(device)
    store.delete_device_records(device)
    logger.info("device deleted", extra={"tenant_id": device.tenant_id, "device_id": device.device_id})
