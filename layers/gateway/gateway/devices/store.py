"""Data access for device records. Reads are strongly consistent: a device just created,
or just changed by its session host, is seen as it is now."""

from __future__ import annotations

import uuid

from pynamodb.exceptions import DoesNotExist

from gateway.models import DeviceModel
from gateway.webhooks import store as webhook_store


def new_device(tenant_id: str, owner_user_id: str, name: str | None, now: str) -> DeviceModel:
    """A device record, not yet saved; without a name it is called after its id."""
    device_id = str(uuid.uuid4())
    return DeviceModel(
        tenant_id,
        device_id,
        owner_user_id=owner_user_id,
        name=name or f"Device {device_id[:8]}",
        created_at=now,
        updated_at=now,
    )


def create_device(device: DeviceModel) -> None:
    """Save a new record; the condition makes an id collision fail instead of overwriting."""
    device.save(condition=DeviceModel.device_id.does_not_exist())


def get_device(tenant_id: str, device_id: str) -> DeviceModel | None:
    try:
        return DeviceModel.get(tenant_id, device_id, consistent_read=True)
    except DoesNotExist:
        return None


def list_devices(tenant_id: str, owner_user_id: str | None = None) -> list[DeviceModel]:
    """The tenant's devices (only ``owner_user_id``'s when given), oldest first."""
    condition = DeviceModel.owner_user_id == owner_user_id if owner_user_id is not None else None
    devices = DeviceModel.query(tenant_id, filter_condition=condition, consistent_read=True)
    return sorted(devices, key=lambda device: (device.created_at, device.device_id))


def delete_device_records(device: DeviceModel) -> None:
    """Delete everything stored for the device: its webhook configuration (delivery stops at
    once), its delivery log, and the device record itself.

    The device's session must be stopped first (see ``commands.stop_for_deletion``). Records
    that belong to the device are deleted here before the device record, so a deletion that
    fails half-way can simply be repeated.
    """
    webhook_store.delete_config(device.tenant_id, device.device_id)
    webhook_store.delete_delivery_log(device.device_id)
    device.delete()
