"""Device routes: create, list, read and delete devices, and drive their sessions.

A device another user owns is visible to admins and managers only; one of another tenant to
nobody (404 ``DEVICE_NOT_FOUND``, never 403).
"""

from typing import Any

from fastapi import APIRouter, Depends

from gateway.accounts.roles import Principal
from gateway.devices import commands, service
from gateway.devices.dependencies import path_device
from gateway.devices.schemas import CreateDeviceRequest, PairPhoneRequest
from gateway.devices.views import device_view
from gateway.models import DeviceModel
from gateway.pagination import PageRequest, page_request
from gateway.web.auth import current_principal

router = APIRouter(tags=["devices"])


@router.post("/devices", status_code=201)
def create_device(
    body: CreateDeviceRequest | None = None, caller: Principal = Depends(current_principal)
) -> dict[str, Any]:
    name = body.name if body is not None else None
    return {"success": True, "device": service.create_device(caller, name)}


@router.get("/devices")
def list_devices(
    caller: Principal = Depends(current_principal), paging: PageRequest = Depends(page_request)
) -> dict[str, Any]:
    page = service.list_devices(caller, paging)
    return {"success": True, "devices": page.items, "next": page.next}


@router.get("/devices/{device_id}")
def get_device(device: DeviceModel = Depends(path_device)) -> dict[str, Any]:
    return {"success": True, "device": device_view(device)}


@router.delete("/devices/{device_id}")
def delete_device(
    device: DeviceModel = Depends(path_device), caller: Principal = Depends(current_principal)
) -> dict[str, Any]:
    service.delete_device(caller, device)
    return {"success": True, "message": "device deleted", "device_id": device.device_id}


@router.post("/devices/{device_id}/connect", status_code=202)
def connect_device(device: DeviceModel = Depends(path_device)) -> dict[str, Any]:
    return {"success": True, "device": commands.connect(device)}


@router.get("/devices/{device_id}/qr")
def device_qr(device: DeviceModel = Depends(path_device)) -> dict[str, Any]:
    return {"success": True, **commands.qr(device)}


@router.post("/devices/{device_id}/pair-phone")
def pair_phone(body: PairPhoneRequest, device: DeviceModel = Depends(path_device)) -> dict[str, Any]:
    return {"success": True, "pair_code": commands.pair_phone(device, body.phone)}


@router.post("/devices/{device_id}/disconnect")
def disconnect_device(device: DeviceModel = Depends(path_device)) -> dict[str, Any]:
    return {"success": True, "device": commands.disconnect(device)}


@router.post("/devices/{device_id}/logout")
def logout_device(device: DeviceModel = Depends(path_device)) -> dict[str, Any]:
    return {"success": True, "device": commands.logout(device)}
