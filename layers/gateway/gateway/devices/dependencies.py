"""FastAPI dependencies that resolve the device of a request, by the rules of ``access``."""

from __future__ import annotations

from fastapi import Depends, Header

from gateway.accounts.roles import Principal
from gateway.devices import store
from gateway.devices.access import DEVICE_HEADER, find_visible_device, only_device
from gateway.models import DeviceModel
from gateway.web.auth import current_principal


def path_device(device_id: str, caller: Principal = Depends(current_principal)) -> DeviceModel:
    """Dependency of the ``/devices/{device_id}`` routes: the visible device of the path."""
    return find_visible_device(caller, device_id)


def authenticated_device(
    caller: Principal = Depends(current_principal),
    x_device_id: str | None = Header(
        default=None,
        alias=DEVICE_HEADER,
        description="The device to act on; may be left out by a caller that owns exactly one device.",
    ),
) -> DeviceModel:
    """Dependency of routes that act through a device (groups, sends, status, webhooks).

    With the ``X-Device-Id`` header: that device, which the caller must be able to see.
    Without it: the one device the caller owns (an admin or manager is not handed another
    user's device by default).
    """
    if x_device_id is not None:
        return find_visible_device(caller, x_device_id)
    return only_device(store.list_devices(caller.tenant_id, owner_user_id=caller.user_id))
