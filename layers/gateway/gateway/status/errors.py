"""How a status-privacy command's failure is answered: in the lowercase operation envelope
``{success, error: {code, message}}`` (decisions, "Sending and status"), like the groups'.

============================  =====================================================
kind of the reply             answer
============================  =====================================================
``invalid``                   400 ``invalid_request``
``not_connected``, ``not_running``  503 ``device_disconnected``
``rate_limited``              429 ``rate_limited``
``unsupported``               501 ``unsupported_operation`` (neonize cannot set it)
``network``                   502 ``privacy_update_failed``
``timeout``, no reply at all  504 ``privacy_update_timeout``
``host_error``, anything else 500 ``device_error`` (the host's text is not shown)
============================  =====================================================

The story publishing routes answer in the standard envelope, as the send routes do
(``gateway.devices.command_errors``).
"""

from __future__ import annotations

from gateway.bus import CommandName, Reply
from gateway.devices.commands import AnswersBy
from gateway.errors import OperationError
from gateway.web.error_docs import operation

STATUS: dict[str, int] = {
    "invalid_request": 400,
    "rate_limited": 429,
    "device_error": 500,
    "unsupported_operation": 501,
    "privacy_update_failed": 502,
    "device_disconnected": 503,
    "privacy_update_timeout": 504,
}
"""Every lowercase code a privacy route answers, and its status."""

_DOING = {
    CommandName.GET_STATUS_PRIVACY: "read the story privacy",
    CommandName.SET_STATUS_PRIVACY: "set the story privacy",
}
_BY_KIND = {
    "invalid": "invalid_request",
    "not_connected": "device_disconnected",
    "not_running": "device_disconnected",
    "rate_limited": "rate_limited",
    "network": "privacy_update_failed",
}
_DEFAULTS = {
    "invalid_request": "the messaging network refused the setting",
    "device_disconnected": "the device is not connected: connect it, or wait while it reconnects",
    "rate_limited": "the messaging network throttled the operation; retry later",
}


def error(code: str, message: str) -> OperationError:
    return OperationError(STATUS[code], code, message)


def timed_out(name: CommandName) -> OperationError:
    """504 ``privacy_update_timeout``: no answer in time from the host or the network."""
    if name is CommandName.SET_STATUS_PRIVACY:
        outcome = "the setting may or may not have changed: read it before retrying"
    else:
        outcome = "nothing was changed; retry"
    return error("privacy_update_timeout", f"no answer in time to {_DOING[name]}: {outcome}")


def reply_error(name: CommandName, reply: Reply) -> OperationError:
    """The answer to a failure ``reply`` of the privacy command ``name`` (see the module)."""
    kind = reply.error_kind or ""
    message = reply.error_message or ""
    if kind == "timeout":
        return timed_out(name)
    if kind == "unsupported":
        detail = f": {message}" if message else ""
        return error(
            "unsupported_operation",
            f"{name.value}: this deployment's network adapter cannot {_DOING[name]}{detail}",
        )
    if kind == "network":
        return error("privacy_update_failed", message or f"the messaging network failed to {_DOING[name]}")
    code = _BY_KIND.get(kind)
    if code is not None:
        return error(code, message or _DEFAULTS[code])
    return error(
        "device_error",
        f"the device's session host failed to {_DOING[name]}; retry later, and quote the "
        "X-Request-Id if it persists",
    )


def incomplete(name: CommandName) -> OperationError:
    """500 ``device_error``: the host answered success without the result it owes."""
    return error("device_error", f"the device's session host gave an incomplete answer to {_DOING[name]}")


PRIVACY_ANSWERS = AnswersBy(timed_out, reply_error)
"""How the privacy commands' failures are answered (the lowercase envelope)."""

PRIVACY_ERRORS = tuple(operation(status, code) for code, status in STATUS.items())
"""What a privacy route answers from its rules and the bus, for its documented errors."""
