"""Device commands: sent over the bus to the session host that runs the device, answered
over HTTP.

Every command goes to the queue on the device record (``host_queue_url``, the host that runs
the device), or to the shared command queue when no host runs it. No answer within the
deadline is 503 SERVICE_UNAVAILABLE, and the host will not execute the command afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gateway.bus import BusTimeout, CommandName, Reply, Target, get_bus
from gateway.devices.qr_image import qr_png_base64
from gateway.devices.views import device_view
from gateway.errors import ApiError
from gateway.failures import answers
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
    reply = execute(device, CommandName.CONNECT)
    return device_view(device, reply.device)


def qr(device: DeviceModel) -> dict[str, Any]:
    """The QR code a phone scans to pair the device, also as a PNG, and when it expires."""
    _refuse_if_paired(device)
    result = execute(device, CommandName.QR).result
    try:
        code, expires_at = str(result["qr_code"]), float(result["expires_at"])
    except (KeyError, TypeError, ValueError):
        raise _malformed(device, CommandName.QR) from None
    return {"qr_code": code, "qr_png_base64": qr_png_base64(code), "expires_at": iso_utc(expires_at)}


def pair_phone(device: DeviceModel, phone: str) -> str:
    """A pair code the user types on the phone ``phone`` (instead of scanning the QR code)."""
    _refuse_if_paired(device)
    result = execute(device, CommandName.PAIR_PHONE, {"phone": phone}).result
    code = result.get("pair_code")
    if not isinstance(code, str) or not code:
        raise _malformed(device, CommandName.PAIR_PHONE)
    return code


def reconnect(device: DeviceModel) -> dict[str, Any]:
    """The supervised session's next attempt now, its backoff reset; 409 CONFLICT when the
    device is connected, or was never paired and is not dialing."""
    reply = execute(device, CommandName.RECONNECT)
    return device_view(device, reply.device)


def disconnect(device: DeviceModel) -> dict[str, Any]:
    """Close the session and keep the login; the device is not restored until connected again."""
    reply = execute(device, CommandName.DISCONNECT)
    return device_view(device, reply.device)


def logout(device: DeviceModel) -> dict[str, Any]:
    """Unlink the device from the phone; it must pair again to be used."""
    reply = execute(device, CommandName.LOGOUT)
    return device_view(device, reply.device)


def stop_for_deletion(device: DeviceModel) -> None:
    """Stop the device's session and unlink it, so its records can go.

    A device that no host runs and that never logged in has nothing to stop: no command.
    """
    if _has_session(device):
        execute(device, CommandName.DELETE)


def stop_all_for_deletion(devices: list[DeviceModel]) -> None:
    """Stop and unlink the sessions of all ``devices`` side by side, so their records can go.

    Every command is sent at once and every reply awaited under one deadline (the command
    timeout), so the time does not grow with the number of devices. Each session that can be
    stopped is; then the first failure, if any, is raised as :func:`execute` raises it.
    """
    running = [device for device in devices if _has_session(device)]
    targets = [Target(device.tenant_id, device.device_id, device.host_queue_url) for device in running]
    replies = get_bus().request_all(CommandName.DELETE, targets)
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
        raise answers.timed_out(CommandName.DELETE)
    raise answers.failed(CommandName.DELETE, reply, device.status)


def _has_session(device: DeviceModel) -> bool:
    """Whether a host may run the device or hold its login: else there is nothing to stop."""
    return device.host_queue_url is not None or bool(device.is_logged_in)


def _refuse_if_paired(device: DeviceModel) -> None:
    """Pairing a paired device is refused from the record, without asking the host."""
    if device.is_logged_in:
        raise answers.known(CommandName.QR, ErrorKind.ALREADY_LOGGED_IN)


def execute(
    device: DeviceModel,
    name: CommandName,
    args: dict[str, Any] | None = None,
    *,
    escalate: Escalate = _as_answered,
) -> Reply:
    """Send a command for the device and return its successful reply; a failure raises its
    answer in :mod:`gateway.failures.table` (as ``escalate`` makes it)."""
    try:
        reply = get_bus().request(
            name,
            tenant_id=device.tenant_id,
            device_id=device.device_id,
            host_queue_url=device.host_queue_url,
            args=args,
        )
    except BusTimeout:
        logger.warning(
            "device command timed out", extra={"command": name.value, "device_id": device.device_id}
        )
        raise escalate(answers.timed_out(name), None) from None
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
        raise escalate(answers.failed(name, reply, device.status, args), reply.error_kind)
    return reply


def _malformed(device: DeviceModel, name: CommandName) -> ApiError:
    logger.error(
        "session host answered without the expected result",
        extra={"command": name.value, "device_id": device.device_id},
    )
    return answers.incomplete(name)
