"""Data access for device records. Reads are strongly consistent: a device just created,
or just changed by its session host, is seen as it is now.

Creating or deleting a device changes its tenant's ``devices_count`` in the same
transaction, so the count is exact without counting, and the tenant's ``max_devices`` holds
under any concurrency: the count's update is conditional on being under the limit, and two
creations at once either serialise or one is cancelled and tried again.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from pynamodb.exceptions import DoesNotExist, TransactWriteError, UpdateError
from pynamodb.transactions import TransactWrite

from gateway.devices import erasure
from gateway.models import DeviceModel, TenantModel
from gateway.models.base import TenantGone, conflicted, failed_conditions, transaction_connection
from gateway.pagination import Listing, Page, PageRequest, read_page
from gateway.retries import CONFLICTING_TRANSACTION

DEVICES = "devices"
_OWNER_FILTER_READ = 200  # a user's own devices among the tenant's: read more per request


class QuotaReached(Exception):
    """The tenant has as many devices as its ``max_devices`` allows."""

    def __init__(self, max_devices: int) -> None:
        super().__init__(f"the tenant may have {max_devices} devices")
        self.max_devices = max_devices


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
    """Save a new record and count it on its tenant, in one transaction.

    The device's condition makes an id collision fail instead of overwriting; the tenant's
    makes a device of a deleted tenant fail (:class:`TenantGone`), and one over the tenant's
    ``max_devices`` (:class:`QuotaReached`). A transaction cancelled by a concurrent one on
    the tenant (another device created or deleted at the same time) is tried again.
    """
    under_limit = TenantModel.max_devices.does_not_exist() | (
        TenantModel.devices_count < TenantModel.max_devices
    )
    for attempt in CONFLICTING_TRANSACTION.retrying(_worth_another_try):
        with attempt:
            try:
                with TransactWrite(connection=transaction_connection()) as transaction:
                    transaction.save(device, condition=DeviceModel.device_id.does_not_exist())
                    transaction.update(
                        TenantModel(device.tenant_id),
                        actions=[TenantModel.devices_count.add(1)],
                        condition=TenantModel.tenant_id.exists() & under_limit,
                    )
            except TransactWriteError as error:
                if _refused_by_tenant(error):
                    _raise_refusal(device.tenant_id, error)  # returns when there is room again
                raise


def _refused_by_tenant(error: TransactWriteError) -> bool:
    """The tenant's condition failed, not the device's (PynamoDB sends the put before the
    update: the reasons are [device, tenant])."""
    device_taken, tenant_refused = [*failed_conditions(error), False, False][:2]
    return tenant_refused and not device_taken


def _worth_another_try(error: BaseException) -> bool:
    """Cancelled by a concurrent transaction, or refused by a tenant that has room again."""
    return isinstance(error, TransactWriteError) and (conflicted(error) or _refused_by_tenant(error))


def _raise_refusal(tenant_id: str, error: TransactWriteError) -> None:
    """Why the tenant refused a new device: gone, or at its limit (else, a device was deleted
    since: the caller tries again)."""
    try:
        tenant = TenantModel.get(tenant_id, consistent_read=True)
    except DoesNotExist:
        raise TenantGone from error
    if tenant.max_devices is not None and int(tenant.devices_count or 0) >= int(tenant.max_devices):
        raise QuotaReached(int(tenant.max_devices)) from error


def get_device(tenant_id: str, device_id: str) -> DeviceModel | None:
    try:
        return DeviceModel.get(tenant_id, device_id, consistent_read=True)
    except DoesNotExist:
        return None


def set_settings(device: DeviceModel, settings: Mapping[str, Any], *, now: str) -> bool:
    """Write the given settings (attribute name to value; None removes one), and only them:
    its session host updates the session fields of the same record meanwhile. The model is
    updated as written. False when the device was deleted since it was read."""
    actions = [
        getattr(DeviceModel, name).remove() if value is None else getattr(DeviceModel, name).set(value)
        for name, value in settings.items()
    ]
    try:
        device.update(
            actions=[*actions, DeviceModel.updated_at.set(now)], condition=DeviceModel.device_id.exists()
        )
    except UpdateError as error:
        if error.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def devices_page(tenant_id: str, request: PageRequest, owner_user_id: str | None = None) -> Page[DeviceModel]:
    """A page of the tenant's devices (only ``owner_user_id``'s when given), by id."""
    if owner_user_id is None:
        return read_page(Listing(DEVICES, DeviceModel, partition=tenant_id), request, consistent_read=True)
    return read_page(
        Listing(DEVICES, DeviceModel, partition=tenant_id),
        request,
        filter_condition=DeviceModel.owner_user_id == owner_user_id,
        consistent_read=True,
        read_size=_OWNER_FILTER_READ,
    )


def list_devices(tenant_id: str, owner_user_id: str | None = None) -> list[DeviceModel]:
    """The tenant's devices (only ``owner_user_id``'s when given), oldest first."""
    condition = DeviceModel.owner_user_id == owner_user_id if owner_user_id is not None else None
    devices = DeviceModel.query(tenant_id, filter_condition=condition, consistent_read=True)
    return sorted(devices, key=lambda device: (device.created_at, device.device_id))


def delete_device_records(device: DeviceModel, *, idempotency_records: bool = True) -> None:
    """Delete everything stored for the device (``erasure``: its webhook configuration first,
    so delivery stops at once, its delivery log, sends, media, lease and, unless told not to,
    its ``Idempotency-Key`` records), then the device record itself.

    The device's session must be stopped first (see ``commands.stop_for_deletion``). Records
    that belong to the device are deleted here before the device record, so a deletion that
    fails half-way can simply be repeated; what a request in flight wrote meanwhile is swept
    once the record is gone.
    """
    erasure.erase_device_data(device.tenant_id, device.device_id, idempotency_records=idempotency_records)
    _delete_counted(device)
    erasure.sweep_late_writes(device.tenant_id, device.device_id)


def _delete_counted(device: DeviceModel) -> None:
    """Delete the record and count it off its tenant, in one transaction; once only, however
    often it is repeated. A tenant deleted meanwhile has no count left to keep."""
    try:
        with TransactWrite(connection=transaction_connection()) as transaction:
            transaction.delete(device, condition=DeviceModel.device_id.exists())
            transaction.update(
                TenantModel(device.tenant_id),
                actions=[TenantModel.devices_count.add(-1)],
                condition=TenantModel.tenant_id.exists(),
            )
    except TransactWriteError as error:
        # PynamoDB sends the delete before the update: the reasons are [device, tenant].
        device_gone, tenant_gone = [*failed_conditions(error), False, False][:2]
        if device_gone:
            return  # deleted (and counted off) by someone else
        if tenant_gone:
            device.delete()
            return
        raise
