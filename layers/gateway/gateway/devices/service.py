"""Device operations that are not session commands: create, list, and delete (which stops the
session first)."""

from __future__ import annotations

from typing import Any

from gateway.accounts.roles import Principal
from gateway.devices import commands, store
from gateway.devices.access import check_can_delete, visible_devices
from gateway.devices.views import device_view
from gateway.models import DeviceModel
from gateway.observability import logger
from gateway.timestamps import iso_utc


def create_device(caller: Principal, name: str | None) -> dict[str, Any]:
    """A new device of the caller's tenant, owned by the caller, not connected yet."""
    device = store.new_device(caller.tenant_id, caller.user_id, name, iso_utc())
    store.create_device(device)
    logger.info("device created", extra={"tenant_id": device.tenant_id, "device_id": device.device_id})
    return device_view(device)


def list_devices(caller: Principal) -> list[dict[str, Any]]:
    return [device_view(device) for device in visible_devices(caller)]


def delete_device(caller: Principal, device: DeviceModel) -> None:
    """Stop and unlink the device's session, then delete its records.

    Nothing is deleted unless the session host confirmed the stop: on a timeout or a failure
    the device stays as it was and the caller may retry.
    """
    check_can_delete(caller, device)
    commands.stop_for_deletion(device)
    store.delete_device_records(device)
    logger.info("device deleted", extra={"tenant_id": device.tenant_id, "device_id": device.device_id})
