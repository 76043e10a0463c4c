"""Device routes: create, list, read, change and delete devices, and drive their sessions.

A device another user owns is visible to admins and managers only; one of another tenant to
nobody (404 ``DEVICE_NOT_FOUND``, never 403).
"""

from fastapi import APIRouter, Depends

from gateway.accounts.roles import Principal
from gateway.bus import CommandName
from gateway.devices import commands, service
from gateway.devices.access import PATH_DEVICE_ERRORS
from gateway.devices.dependencies import path_device
from gateway.devices.outputs import (
    DeviceDeletedResponse,
    DeviceListResponse,
    DeviceResponse,
    PairCodeResponse,
    QrCodeResponse,
)
from gateway.devices.schemas import CreateDeviceRequest, PairPhoneRequest, UpdateDeviceRequest
from gateway.devices.views import device_view
from gateway.failures.table import command_errors
from gateway.models import DeviceModel
from gateway.pagination import PageRequest, page_request
from gateway.web.auth import current_principal
from gateway.web.error_docs import AUTHENTICATED, ROLE_GATED, WITH_BODY, WITH_PARAMETERS, answers

router = APIRouter(tags=["devices"])

DEVICE_ROUTE = (AUTHENTICATED, PATH_DEVICE_ERRORS)


@router.post("/devices", status_code=201, responses=answers(AUTHENTICATED, WITH_BODY, service.CREATE_ERRORS))
def create_device(
    body: CreateDeviceRequest | None = None, caller: Principal = Depends(current_principal)
) -> DeviceResponse:
    name = body.name if body is not None else None
    return DeviceResponse(device=service.create_device(caller, name))


@router.get("/devices", responses=answers(AUTHENTICATED, WITH_PARAMETERS))
def list_devices(
    caller: Principal = Depends(current_principal), paging: PageRequest = Depends(page_request)
) -> DeviceListResponse:
    page = service.list_devices(caller, paging)
    return DeviceListResponse(devices=page.items, next=page.next)


@router.get("/devices/{device_id}", responses=answers(DEVICE_ROUTE))
def get_device(device: DeviceModel = Depends(path_device)) -> DeviceResponse:
    return DeviceResponse(device=device_view(device))


@router.patch("/devices/{device_id}", responses=answers(ROLE_GATED, DEVICE_ROUTE, WITH_BODY))
def update_device(
    body: UpdateDeviceRequest,
    device: DeviceModel = Depends(path_device),
    caller: Principal = Depends(current_principal),
) -> DeviceResponse:
    """Owner, admin or manager: change any of the device's settings (name, send spacing, call
    rejection, proxy); the fields left out keep their values."""
    return DeviceResponse(device=service.update_device(caller, device, body))


@router.delete(
    "/devices/{device_id}",
    responses=answers(ROLE_GATED, DEVICE_ROUTE, command_errors(CommandName.DELETE)),
)
def delete_device(
    device: DeviceModel = Depends(path_device), caller: Principal = Depends(current_principal)
) -> DeviceDeletedResponse:
    """Owner or admin: a manager may see another user's device but not delete it (403)."""
    service.delete_device(caller, device)
    return DeviceDeletedResponse(message="device deleted", device_id=device.device_id)


@router.post(
    "/devices/{device_id}/connect",
    status_code=202,
    responses=answers(DEVICE_ROUTE, command_errors(CommandName.CONNECT)),
)
def connect_device(device: DeviceModel = Depends(path_device)) -> DeviceResponse:
    return DeviceResponse(device=commands.connect(device))


@router.post(
    "/devices/{device_id}/reconnect",
    status_code=202,
    responses=answers(DEVICE_ROUTE, command_errors(CommandName.RECONNECT)),
)
def reconnect_device(device: DeviceModel = Depends(path_device)) -> DeviceResponse:
    """Try to reach the network now instead of at `reconnect_at` (backoff reset); emits
    `connection.manual_reconnect`."""
    return DeviceResponse(device=commands.reconnect(device))


@router.get("/devices/{device_id}/qr", responses=answers(DEVICE_ROUTE, command_errors(CommandName.QR)))
def device_qr(device: DeviceModel = Depends(path_device)) -> QrCodeResponse:
    return QrCodeResponse(**commands.qr(device))


@router.post(
    "/devices/{device_id}/pair-phone",
    responses=answers(DEVICE_ROUTE, WITH_BODY, command_errors(CommandName.PAIR_PHONE)),
)
def pair_phone(body: PairPhoneRequest, device: DeviceModel = Depends(path_device)) -> PairCodeResponse:
    return PairCodeResponse(pair_code=commands.pair_phone(device, body.phone))


@router.post(
    "/devices/{device_id}/disconnect", responses=answers(DEVICE_ROUTE, command_errors(CommandName.DISCONNECT))
)
def disconnect_device(device: DeviceModel = Depends(path_device)) -> DeviceResponse:
    return DeviceResponse(device=commands.disconnect(device))


@router.post(
    "/devices/{device_id}/logout", responses=answers(DEVICE_ROUTE, command_errors(CommandName.LOGOUT))
)
def logout_device(device: DeviceModel = Depends(path_device)) -> DeviceResponse:
    return DeviceResponse(device=commands.logout(device))
