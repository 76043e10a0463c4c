"""How a group command's failure is answered: the session host's error kind becomes one
lowercase code of :mod:`gateway.groups.codes`, with its status.

============================  =====================================================
kind of the reply             answer
============================  =====================================================
a refusal code (``REFUSALS``)   that code and its status (403 ``not_group_admin``, ...)
``not_connected``, ``not_running``  503 ``device_disconnected``
``rate_limited``              429 ``rate_limited``
``unsupported``               501 ``unsupported_operation``, naming the operation
``network``                   502: the operation's own failure code (``create_failed``...)
``timeout``, no reply at all  504 ``operation_timeout``
``not_found``                 404 ``group_not_found``
``invalid``                   400 ``invalid_request``
``host_error``, anything else 500 ``device_error`` (the host's text is not shown)
============================  =====================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.bus import CommandName, Reply
from gateway.devices.commands import AnswersBy
from gateway.errors import OperationError
from gateway.groups import codes
from gateway.web.error_docs import Answer, operation


@dataclass(frozen=True)
class GroupCommand:
    """What a group command is called in messages, the code of its network failure, and
    whether it changes anything (a read that timed out changed nothing)."""

    doing: str
    network_failure: str
    changes: bool = True


COMMANDS: dict[CommandName, GroupCommand] = {
    CommandName.CREATE_GROUP: GroupCommand("create a group", "create_failed"),
    CommandName.LIST_GROUPS: GroupCommand("list the groups", "fetch_failed", changes=False),
    CommandName.GROUP_INFO: GroupCommand("read the group", "fetch_failed", changes=False),
    CommandName.GROUP_PARTICIPANTS: GroupCommand("change the group's participants", "update_failed"),
    CommandName.UPDATE_GROUP: GroupCommand("change the group's settings", "update_failed"),
    CommandName.GROUP_PICTURE: GroupCommand("set the group's picture", "update_failed"),
    CommandName.GROUP_EPHEMERAL: GroupCommand("set the disappearing-message timer", "update_failed"),
    CommandName.GROUP_INVITE: GroupCommand("get or reset the invite link", "invite_failed"),
    CommandName.JOIN_GROUP: GroupCommand("join the group", "invite_failed"),
    CommandName.LEAVE_GROUP: GroupCommand("leave the group", "update_failed"),
    CommandName.LINK_GROUP: GroupCommand("link the group into the community", "update_failed"),
    CommandName.UNLINK_GROUP: GroupCommand("unlink the group from the community", "update_failed"),
    CommandName.GROUP_REQUESTS: GroupCommand("list the join requests", "fetch_failed", changes=False),
    CommandName.ANSWER_GROUP_REQUESTS: GroupCommand("answer the join requests", "update_failed"),
}
"""Every group command of the bus (a test keeps it complete)."""

_SESSION_KINDS = frozenset({"not_connected", "not_running"})
_DEFAULTS = {
    "rate_limited": "the messaging network throttled the operation; retry later",
    "not_found": "the group does not exist, or the device is not in it",
    "invalid": "the messaging network refused the input",
    "device_disconnected": "the device is not connected: connect it, or wait while it reconnects",
}
_BY_KIND = {
    "rate_limited": "rate_limited",
    "not_found": "group_not_found",
    "invalid": "invalid_request",
}


def _error(code: str, message: str) -> OperationError:
    return OperationError(codes.STATUS[code], code, message)


def timed_out(name: CommandName) -> OperationError:
    """504 ``operation_timeout``: the session host or the network did not answer in time."""
    command = COMMANDS[name]
    if command.changes:
        outcome = "the change may or may not have been made: read the group before retrying"
    else:
        outcome = "nothing was changed; retry"
    return _error("operation_timeout", f"no answer in time to {command.doing}: {outcome}")


def reply_error(name: CommandName, reply: Reply) -> OperationError:
    """The answer to a failure ``reply`` of the group command ``name`` (see the module)."""
    command = COMMANDS[name]
    kind = reply.error_kind or ""
    message = reply.error_message or ""
    if codes.is_refusal(kind):
        return _error(kind, message or kind.replace("_", " "))
    if kind in _SESSION_KINDS:
        return _error("device_disconnected", message or _DEFAULTS["device_disconnected"])
    if kind == "timeout":
        return timed_out(name)
    if kind == "unsupported":
        detail = f": {message}" if message else ""
        return _error(
            "unsupported_operation",
            f"{name.value}: this deployment's network adapter cannot {command.doing}{detail}",
        )
    if kind == "network":
        return _error(command.network_failure, message or f"the messaging network failed to {command.doing}")
    if kind in _BY_KIND:
        code = _BY_KIND[kind]
        return _error(code, message or _DEFAULTS[kind])
    return _error(
        "device_error",
        f"the device's session host failed to {command.doing}; retry later, and quote the "
        "X-Request-Id if it persists",
    )


GROUP_ANSWERS = AnswersBy(timed_out, reply_error)
"""How the group commands' failures are answered (the lowercase envelope)."""


def incomplete(name: CommandName) -> OperationError:
    """500 ``device_error``: the host answered success without the result it owes."""
    return _error(
        "device_error", f"the device's session host gave an incomplete answer to {COMMANDS[name].doing}"
    )


# --- what the routes document (gateway.web.error_docs) ---------------------------------------


def answered(*refusals: str) -> tuple[Answer, ...]:
    """The answers of ``refusals`` (codes of :data:`codes.STATUS`), one per code."""
    return tuple(operation(codes.STATUS[code], code) for code in refusals)


def command_answers(*names: CommandName) -> tuple[Answer, ...]:
    """What a route sending the commands ``names`` may answer from the bus, beyond the refusals
    it names itself: the session, throttling, the adapter, the network, the host, the clock."""
    failures = {COMMANDS[name].network_failure for name in names}
    return answered(
        "invalid_request",
        "group_not_found",
        "rate_limited",
        "device_error",
        "unsupported_operation",
        *sorted(failures),
        "device_disconnected",
        "operation_timeout",
    )
