"""A failure of :mod:`gateway.failures.table` as the error raised, and as what a route
documents: the one place a reply's error kind becomes an HTTP answer."""

from __future__ import annotations

from typing import Any

from gateway.bus.contracts import CommandName
from gateway.bus.messages import Reply
from gateway.errors import ApiError, OperationError, validation_error
from gateway.failures.codes import ErrorCode
from gateway.failures.kinds import ErrorKind
from gateway.failures.table import (
    DOING,
    NOT_CONNECTED,
    REFUSAL,
    Envelope,
    Failure,
    FamilyTable,
    HostText,
    table_of,
)
from gateway.groups import codes
from gateway.groups.codes import OperationCode
from gateway.web.error_docs import Answer, operation, standard


def failed(
    name: CommandName, reply: Reply[Any], recorded_status: str, args: dict[str, Any] | None = None
) -> ApiError:
    """The answer to the failure ``reply`` of the command ``name``.

    ``recorded_status`` is the device record's status, used when the reply carries no device
    snapshot. A standard ``VALIDATION_ERROR`` is reported against the command's first
    argument in ``args`` (``phone``, the recipient, ...).
    """
    table = table_of(name)
    kind = reply.error_kind or ErrorKind.HOST_ERROR
    failure = table.failure(kind)
    refusal = reply.error_code or ""
    if failure.code == REFUSAL and not codes.is_refusal(refusal):
        failure = table.otherwise
    status = reply.device.status if reply.device is not None else recorded_status
    return _raised(table, failure, name, status, reply.error_message, args, refusal)


def known(name: CommandName, kind: ErrorKind, status: str = "") -> ApiError:
    """The answer to ``kind`` for the command ``name`` when the API knows it without asking
    the host (a paired device asked to pair, a message the outbox says is gone)."""
    table = table_of(name)
    return _raised(table, table.failure(kind), name, status, None, None, "")


def timed_out(name: CommandName) -> ApiError:
    """No reply before the deadline: the host will not execute the command afterwards."""
    table = table_of(name)
    return _raised(table, table.no_reply, name, "", None, None, "")


def incomplete(name: CommandName) -> ApiError:
    """The host answered success without the result the command owes."""
    table = table_of(name)
    return _raised(table, table.incomplete, name, "", None, None, "")


def session_unavailable(status: str, message: str | None = None) -> ApiError:
    """The 503 of a device whose session cannot serve, in the standard envelope:
    DEVICE_DISCONNECTED while a lost connection is being restored, DEVICE_NOT_READY in every
    other state."""
    failure = _in_state(NOT_CONNECTED, status)
    return ApiError(failure.status, failure.code, message or failure.message.format(status=status))


def command_errors(*names: CommandName) -> tuple[Answer, ...]:
    """What a route sending the commands ``names`` may answer from the bus (beyond the
    refusals a group route names itself), for its documented errors."""
    found: list[Answer] = []
    for name in names:
        table = table_of(name)
        document = standard if table.envelope is Envelope.STANDARD else operation
        found.extend(document(failure.status, failure.code) for failure in table.answers())
    return tuple(dict.fromkeys(found))


def refusal_errors(*refusals: OperationCode) -> tuple[Answer, ...]:
    """What a group route documents for the ``refusals`` it may meet, one answer per code."""
    return tuple(operation(codes.REFUSALS[code], code) for code in refusals)


def operation_error(code: OperationCode, message: str) -> OperationError:
    """An error of the lowercase envelope, with its code's status."""
    return OperationError(codes.STATUS[code], code, message)


def _in_state(failure: Failure, status: str) -> Failure:
    if failure.reconnecting is not None and status == "disconnected":
        return failure.reconnecting
    return failure


def _raised(
    table: FamilyTable,
    failure: Failure,
    name: CommandName,
    status: str,
    host_message: str | None,
    args: dict[str, Any] | None,
    refusal: str,
) -> ApiError:
    failure = _in_state(failure, status)
    http_status, code = failure.status, failure.code
    if code == REFUSAL:
        http_status, code = codes.REFUSALS[refusal], refusal
    text = failure.message.format(
        doing=DOING.get(name, name.value), name=name.value, status=status, refusal=refusal.replace("_", " ")
    )
    if host_message and failure.host_text is HostText.REPLACES:
        text = host_message
    elif host_message and failure.host_text is HostText.APPENDED:
        text = f"{text}: {host_message}"
    if table.envelope is Envelope.OPERATION:
        return OperationError(http_status, code, text)
    if code == ErrorCode.VALIDATION_ERROR and args:
        field, value = next(iter(args.items()))
        return validation_error(field, text, value)
    return ApiError(http_status, code, text)
