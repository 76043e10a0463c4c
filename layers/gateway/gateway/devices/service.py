"""Device operations that are not session commands: create, list, change settings, and delete
(which stops the session first)."""

from __future__ import annotations

from typing import Any

from gateway.accounts.roles import Principal
from gateway.config import get_settings
from gateway.devices import commands, store
from gateway.devices.access import check_can_configure, check_can_delete, device_not_found, visible_owner
from gateway.devices.proxies import ProxyUrlError, check_proxy_url
from gateway.devices.schemas import UpdateDeviceRequest
from gateway.devices.views import device_view
from gateway.errors import ApiError, invalid_token, validation_error
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


SETTINGS = tuple(UpdateDeviceRequest.model_fields)
"""The fields of PATCH /devices/{id}, each the device record's attribute of the same name."""
CLEARABLE = frozenset({"reject_calls_message", "proxy_url", "daily_send_limit", "new_chat_daily_limit"})
"""Settings a null removes; a null of the others means left out."""


def update_device(caller: Principal, device: DeviceModel, request: UpdateDeviceRequest) -> dict[str, Any]:
    """Change the settings the request gives and leave the others as they are (400 when it
    gives none). The session host reads the send spacing before each dispatch and the call
    settings at each call, so they apply at once; the proxy applies from the next connect."""
    check_can_configure(caller, device)
    settings = _settings_of(request)
    if not store.set_settings(device, settings, now=iso_utc()):
        raise device_not_found()  # deleted since it was read
    logger.info(
        "device settings changed", extra={"device_id": device.device_id, "settings": sorted(settings)}
    )
    return device_view(device)


def _settings_of(request: UpdateDeviceRequest) -> dict[str, Any]:
    """The settings the request changes, by attribute name (None: remove), proxy checked."""
    given = {
        name: getattr(request, name)
        for name in SETTINGS
        if name in request.model_fields_set and (getattr(request, name) is not None or name in CLEARABLE)
    }
    if not given:
        raise validation_error("body", f"give at least one setting: {', '.join(SETTINGS)}")
    proxy_url = given.get("proxy_url")
    if proxy_url is not None:
        try:
            given["proxy_url"] = check_proxy_url(proxy_url, local_mode=get_settings().local_mode)
        except ProxyUrlError as error:
            raise validation_error("proxy_url", str(error)) from None  # never echo a password
    return given


def delete_device(caller: Principal, device: DeviceModel) -> None:
    """Stop and unlink the device's session, then delete its records.

    Nothing is deleted unless the session host confirmed the stop: on a timeout or a failure
    the device stays as it was and the caller may retry.
    """
    check_can_delete(caller, device)
    commands.stop_for_deletion(device)
    store.delete_device_records(device)
    logger.info("device deleted", extra={"tenant_id": device.tenant_id, "device_id": device.device_id})
