"""Device commands: sent over the bus to the session host that runs the device, answered
over HTTP.

Every command goes to the queue on the device record (``host_queue_url``, the host that runs
the device), or to the shared command queue when no host runs it. No answer within the
deadline is 503 SERVICE_UNAVAILABLE, and the host will not execute the command afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic

from gateway.bus import BusTimeout, CommandName, DeviceSnapshot, Target, contracts, get_bus
from gateway.bus.contracts import A, Contract, R
from gateway.devices.qr_image import qr_png_base64
from gateway.devices.views import device_view
from gateway.errors import ApiError
from gateway.failures import table
from gateway.failures.kinds import ErrorKind
from gateway.models import DeviceModel
from gateway.observability import logger
from gateway.timestamps import iso_utc

Escalate = Callable[[ApiError, ErrorKind | None], ApiError]
"""What a caller makes of a command's failure answer, given the reply's error kind (None: no
reply in time); the status routes' publishing turns an unclear outcome into ``Unclear``."""


def _as_answered(error: ApiError, _kind: ErrorKind | None) -> ApiError:
    return error


def connect(device: DeviceModel) -> dict[str, Any]:
    """Start the device's session (a no-op when it runs); the device as the host left it."""
    return device_view(device, execute(device, contracts.CONNECT).device)


def qr(device: DeviceModel) -> dict[str, Any]:
    """The QR code a phone scans to pair the device, also as a PNG, and when it expires."""
    _refuse_if_paired(device)
    shown = execute(device, contracts.QR).result
    return {
        "qr_code": shown.qr_code,
        "qr_png_base64": qr_png_base64(shown.qr_code),
        "expires_at": iso_utc(shown.expires_at),
    }


def pair_phone(device: DeviceModel, phone: str) -> str:
    """A pair code the user types on the phone ``phone`` (instead of scanning the QR code)."""
    _refuse_if_paired(device)
    args = contracts.sessions.PairPhoneArgs(phone=phone)
    return execute(device, contracts.PAIR_PHONE, args).result.pair_code


def reconnect(device: DeviceModel) -> dict[str, Any]:
    """The supervised session's next attempt now, its backoff reset; 409 CONFLICT when the
    device is connected, or was never paired and is not dialing."""
    return device_view(device, execute(device, contracts.RECONNECT).device)


def disconnect(device: DeviceModel) -> dict[str, Any]:
    """Close the session and keep the login; the device is not restored until connected again."""
    return device_view(device, execute(device, contracts.DISCONNECT).device)


def logout(device: DeviceModel) -> dict[str, Any]:
    """Unlink the device from the phone; it must pair again to be used."""
    return device_view(device, execute(device, contracts.LOGOUT).device)


def stop_for_deletion(device: DeviceModel) -> None:
    """Stop the device's session and unlink it, so its records can go.

    A device that no host runs and that never logged in has nothing to stop: no command.
    """
    if _has_session(device):
        execute(device, contracts.DELETE)


def stop_all_for_deletion(devices: list[DeviceModel]) -> None:
    """Stop and unlink the sessions of all ``devices`` side by side, so their records can go.

    Every command is sent at once and every reply awaited under one deadline (the command
    timeout), so the time does not grow with the number of devices. Each session that can be
    stopped is; then the first failure, if any, is raised as :func:`execute` raises it.
    """
    running = [device for device in devices if _has_session(device)]
    targets = [Target(device.tenant_id, device.device_id, device.host_queue_url) for device in running]
    replies = get_bus().request_all(contracts.DELETE, targets)
    answered = zip(running, replies, strict=True)
    failures = [(device, reply) for device, reply in answered if reply is None or not reply.ok]
    if not failures:
        return
    logger.warning(
        "sessions not stopped for deletion",
        extra={"devices": [device.device_id for device, _ in failures], "of": len(running)},
    )
    device, reply = failures[0]
    if reply is None:
        raise table.timed_out(CommandName.DELETE)
    raise table.failed(CommandName.DELETE, reply, device.status)


def _has_session(device: DeviceModel) -> bool:
    """Whether a host may run the device or hold its login: else there is nothing to stop."""
    return device.host_queue_url is not None or bool(device.is_logged_in)


def _refuse_if_paired(device: DeviceModel) -> None:
    """Pairing a paired device is refused from the record, without asking the host."""
    if device.is_logged_in:
        raise table.known(CommandName.QR, ErrorKind.ALREADY_LOGGED_IN)


@dataclass(frozen=True)
class Success(Generic[R]):
    """A command's successful reply: its result (the contract's) and the device's state."""

    result: R
    device: DeviceSnapshot | None


def execute(
    device: DeviceModel,
    contract: Contract[A, R],
    args: A | None = None,
    *,
    escalate: Escalate = _as_answered,
) -> Success[R]:
    """Send a command for the device and return its success; a failure raises its answer in
    :mod:`gateway.failures.table` (as ``escalate`` makes it). ``args`` are the contract's
    (None: a command that takes none)."""
    name = contract.name
    try:
        reply = get_bus().request(
            contract,
            args,
            tenant_id=device.tenant_id,
            device_id=device.device_id,
            host_queue_url=device.host_queue_url,
        )
    except BusTimeout:
        logger.warning(
            "device command timed out", extra={"command": name.value, "device_id": device.device_id}
        )
        raise escalate(table.timed_out(name), None) from None
    if not reply.ok:
        logger.info(
            "device command failed",
            extra={
                "command": name.value,
                "device_id": device.device_id,
                "kind": reply.error_kind,
                "host_message": reply.error_message,
            },
        )
        given = args.model_dump(mode="json", exclude_none=True) if args is not None else None
        raise escalate(table.failed(name, reply, device.status, given), reply.error_kind)
    if reply.result is None:
        raise escalate(_incomplete(device, name), ErrorKind.HOST_ERROR)
    return Success(reply.result, reply.device)


def _incomplete(device: DeviceModel, name: CommandName) -> ApiError:
    """The host answered success without the result its contract owes (the bus client read
    one out of contract): the table's incomplete answer."""
    logger.error(
        "session host answered without the expected result",
        extra={"command": name.value, "device_id": device.device_id},
    )
    return table.incomplete(name)
