"""How a device command's failure is answered over HTTP.

The session host replies with an error kind: a ``NetworkErrorKind`` value of the network
port, or the bus's own ``not_running`` / ``host_error``. Each kind has one status and code,
except where a command has its own code for a kind (:data:`_BY_COMMAND`: the specification's
codes of the message operations).
"""

from __future__ import annotations

from typing import Any

from gateway.bus import CommandName, Reply
from gateway.devices.access import SESSION_ERRORS, session_unavailable
from gateway.errors import ApiError, validation_error
from gateway.web.error_docs import Answer, standard

# kind -> (HTTP status, error_code, message used when the host gave none)
_BY_KIND: dict[str, tuple[int, str, str]] = {
    "already_logged_in": (409, "ALREADY_LOGGED_IN", "the device is already paired; log out to pair it again"),
    "network": (502, "NETWORK_ERROR", "the messaging network refused or failed the operation"),
    "timeout": (503, "SERVICE_UNAVAILABLE", "the messaging network did not answer in time; retry later"),
    "rate_limited": (429, "RATE_LIMITED", "the messaging network throttled the operation; retry later"),
    "unsupported": (501, "UNSUPPORTED_OPERATION", "the messaging network adapter cannot do this"),
    "not_found": (404, "NOT_FOUND", "the messaging network does not know the target"),
    "host_full": (
        503,
        "SERVICE_UNAVAILABLE",
        "the session host that took the request runs as many devices as it may; retry (another host "
        "may have room) or add session hosts",
    ),
}
# (command, kind) -> (HTTP status, error_code, message used when the host gave none)
_BY_COMMAND: dict[tuple[CommandName, str], tuple[int, str, str]] = {
    (CommandName.DELETE_MESSAGE, "not_found"): (
        404,
        "MESSAGE_NOT_FOUND",
        "the device sent no such message in that chat, or it was already deleted",
    ),
    (CommandName.DELETE_MESSAGE, "expired"): (
        400,
        "DELETE_TIME_EXPIRED",
        "the window to delete this message for everyone has passed; it can still be deleted for me",
    ),
    (CommandName.DELETE_MESSAGE, "network"): (
        500,
        "DELETE_FAILED",
        "the messaging network failed the delete",
    ),
    (CommandName.RECONNECT, "conflict"): (
        409,
        "CONFLICT",
        "the device is connected, or was never paired and is not dialing: nothing to reconnect",
    ),
    (CommandName.SYNC_HISTORY, "network"): (
        502,
        "SYNC_REQUEST_FAILED",
        "the messaging network failed the history request",
    ),
}
_NOT_RUNNING = "not_running"  # no session runs the device
_NOT_CONNECTED = "not_connected"  # a session runs, but is not connected or not logged in
NETWORK_REFUSALS = frozenset({"network", "invalid", "not_found", "rate_limited", "unsupported"})
"""Error kinds of an operation the network (or the adapter) refused before any of it went out:
an outcome as clear as an input error. A ``timeout``, a ``host_error`` and any kind not
named here leave the outcome unclear (decisions, "Hostile conditions")."""
NOT_STARTED = frozenset({_NOT_RUNNING, _NOT_CONNECTED, "host_full"})
"""Error kinds of a command no session started: nothing of it reached the network."""
_DEVICE_ERROR = "the device could not be acquired; retry later, and quote the X-Request-Id if it persists"
_PAIRING_KINDS = frozenset({"already_logged_in"})

COMMAND_ERRORS = (
    *(standard(status, code) for kind, (status, code, _) in _BY_KIND.items() if kind not in _PAIRING_KINDS),
    standard(400, "VALIDATION_ERROR"),  # the ``invalid`` kind
    standard(500, "DEVICE_ERROR"),  # ``host_error``, an unknown kind, an incomplete answer
    standard(503, "SERVICE_UNAVAILABLE"),  # no answer in time
    *SESSION_ERRORS,  # no session runs the device, or it is not connected
)
"""What a route sending a device command may answer, for its documented errors."""
PAIRING_ERRORS = (*COMMAND_ERRORS, standard(409, "ALREADY_LOGGED_IN"))
""":data:`COMMAND_ERRORS` of the pairing commands (QR code, pair code), refused on a paired device."""


def command_specific_errors(name: CommandName) -> tuple[Answer, ...]:
    """The codes :data:`_BY_COMMAND` gives ``name``'s failures, for its documented errors."""
    return tuple(
        standard(status, code) for (command, _), (status, code, _) in _BY_COMMAND.items() if command is name
    )


def message_not_found() -> ApiError:
    """What DELETE /messages/{message_id} answers for a message the device did not send
    there (or already deleted), whether the API or the session host finds it out."""
    status, code, message = _BY_COMMAND[(CommandName.DELETE_MESSAGE, "not_found")]
    return ApiError(status, code, message)


def bus_timeout() -> ApiError:
    return ApiError(
        503, "SERVICE_UNAVAILABLE", "the device's session host did not answer in time; retry later"
    )


def already_logged_in() -> ApiError:
    status, code, message = _BY_KIND["already_logged_in"]
    return ApiError(status, code, message)


def command_error(
    reply: Reply, recorded_status: str, args: dict[str, Any] | None = None, name: CommandName | None = None
) -> ApiError:
    """The ApiError for a failure ``reply`` (of the command ``name``, when its kinds have codes
    of their own).

    ``recorded_status`` is the device record's status, used when the reply carries no device
    snapshot. An ``invalid`` input is reported against the command's argument (``phone``).
    ``host_error`` and unknown kinds become 500 DEVICE_ERROR without the host's text, which
    may describe internals.
    """
    kind = reply.error_kind or ""
    message = reply.error_message or None
    if kind in (_NOT_RUNNING, _NOT_CONNECTED):
        device_status = reply.device.status if reply.device is not None else recorded_status
        if kind == _NOT_RUNNING and device_status != "disconnected":
            message = "the device's session is not running: connect the device first"
        return session_unavailable(device_status, message)
    if kind == "invalid":
        text = message or "the messaging network refused the input"
        if args:
            field, value = next(iter(args.items()))
            return validation_error(field, text, value)
        return ApiError(400, "VALIDATION_ERROR", text)
    if name is not None and (name, kind) in _BY_COMMAND:
        status, code, default = _BY_COMMAND[(name, kind)]
        return ApiError(status, code, message or default)
    if kind in _BY_KIND:
        status, code, default = _BY_KIND[kind]
        return ApiError(status, code, message or default)
    return ApiError(500, "DEVICE_ERROR", _DEVICE_ERROR)
