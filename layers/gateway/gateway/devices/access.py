"""Who sees which device, which device a request acts on, and whether its session can serve.

A ``user`` sees the devices it owns; an ``admin`` or ``manager`` sees every device of its
tenant. A device the caller cannot see is answered exactly like one that does not exist
(404 ``DEVICE_NOT_FOUND``), so nothing tells a caller that another tenant's or another
user's device exists.
"""

from __future__ import annotations

import uuid

from gateway.accounts.roles import Principal, Role
from gateway.devices import store
from gateway.errors import ApiError, insufficient_permissions, not_found
from gateway.failures.codes import ErrorCode
from gateway.failures.table import operation_error, session_unavailable
from gateway.groups.codes import OperationCode
from gateway.models import DeviceModel
from gateway.web.error_docs import standard

DEVICE_HEADER = "X-Device-Id"

# What the rules below answer, for the routes' documented errors (gateway.web.error_docs).
PATH_DEVICE_ERRORS = (standard(404, ErrorCode.DEVICE_NOT_FOUND),)
"""A ``/devices/{device_id}`` route: the device is not one the caller can see."""
ACTING_DEVICE_ERRORS = (
    standard(400, ErrorCode.DEVICE_ID_REQUIRED),
    standard(404, ErrorCode.DEVICE_NOT_FOUND),
)
"""A route acting through the ``X-Device-Id`` device, or the caller's only one."""


def device_not_found() -> ApiError:
    return not_found(ErrorCode.DEVICE_NOT_FOUND, "device not found")


def can_see(caller: Principal, device: DeviceModel) -> bool:
    if device.tenant_id != caller.tenant_id:
        return False
    return caller.role is not Role.USER or device.owner_user_id == caller.user_id


def check_can_delete(caller: Principal, device: DeviceModel) -> None:
    """Deleting takes the owner or an admin; a manager sees other users' devices but may not
    delete them (403). Callers that cannot see the device got 404 before this."""
    if caller.role is not Role.ADMIN and device.owner_user_id != caller.user_id:
        raise insufficient_permissions()


def check_can_configure(caller: Principal, device: DeviceModel) -> None:
    """Changing a device's settings takes its owner, an admin or a manager (403 for anyone
    else). Callers that cannot see the device got 404 before this."""
    if caller.role is Role.USER and device.owner_user_id != caller.user_id:
        raise insufficient_permissions()


def _is_device_id(value: str) -> bool:
    """Ids are lowercase UUID strings; anything else cannot exist, so no read is spent on it."""
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


def find_visible_device(caller: Principal, device_id: str) -> DeviceModel:
    """The device ``device_id`` of the caller's tenant, if the caller may see it; else 404."""
    device = store.get_device(caller.tenant_id, device_id) if _is_device_id(device_id) else None
    if device is None or not can_see(caller, device):
        raise device_not_found()
    return device


def visible_owner(caller: Principal) -> str | None:
    """The owner whose devices alone the caller sees (its own, for a ``user``), else None."""
    return caller.user_id if caller.role is Role.USER else None


def visible_devices(caller: Principal) -> list[DeviceModel]:
    """Every device the caller may see, oldest first."""
    return store.list_devices(caller.tenant_id, owner_user_id=visible_owner(caller))


def only_device(devices: list[DeviceModel]) -> DeviceModel:
    """The one device of a caller that named none: 404 without any, 400 with several."""
    if not devices:
        raise device_not_found()
    if len(devices) > 1:
        raise ApiError(
            400,
            ErrorCode.DEVICE_ID_REQUIRED,
            f"you have several devices: name one in the {DEVICE_HEADER} header",
        )
    return devices[0]


def require_session(device: DeviceModel) -> None:
    """Refuse an operation that needs a connected session, with the status's 503."""
    if device.status != "connected":
        raise session_unavailable(device.status)


def require_group_session(device: DeviceModel) -> None:
    """:func:`require_session` for group operations, whose errors are lowercase and say
    ``device_disconnected`` for every status but ``connected``."""
    if device.status != "connected":
        raise operation_error(
            OperationCode.DEVICE_DISCONNECTED, f"the device is not connected (status {device.status})"
        )
