"""The one table of how a device command's failure is answered over HTTP.

A command belongs to one :class:`Family`; the table gives, for each family and each
:class:`~gateway.failures.kinds.ErrorKind` of the session host's reply, one
:class:`Failure`: the HTTP status, the error code and the message. Each family also names its
answer when no reply came in time (:attr:`FamilyTable.no_reply`), when the reply lacked the
result the command owes (:attr:`FamilyTable.incomplete`) and for a kind it has no row for
(:attr:`FamilyTable.otherwise`: the host failed; its text is never shown).

The standard families answer in the standard envelope (uppercase codes), the group and
status-privacy ones in the lowercase operation envelope. The functions at the end are the one
place a reply's error kind becomes an HTTP answer: they turn a row into the error raised
(:func:`failed`, :func:`known`, :func:`timed_out`, :func:`incomplete`), and into what a route
documents (:func:`command_errors`), so the OpenAPI document follows this table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum
from types import MappingProxyType
from typing import Any

from gateway.bus.contracts import CommandName
from gateway.bus.messages import Reply
from gateway.errors import ApiError, OperationError, validation_error
from gateway.failures.codes import ErrorCode
from gateway.failures.kinds import ErrorKind
from gateway.groups import codes
from gateway.groups.codes import OperationCode
from gateway.web.error_docs import Answer, operation, standard


class Envelope(Enum):
    """Which error body a family answers with (``gateway.errors``)."""

    STANDARD = "standard"  # {success, error, error_code, timestamp, validation?}
    OPERATION = "operation"  # {success, error: {code, message}}, lowercase codes


class HostText(Enum):
    """What becomes of the message the session host replied with."""

    REPLACES = "replaces"  # the host's text, when it gave one, instead of the row's
    APPENDED = "appended"  # the row's text, then ": " and the host's
    HIDDEN = "hidden"  # the row's text only: the host's may describe internals


REFUSAL = "<refusal>"
"""The code of a ``REFUSED`` row: the group code the reply names (``Reply.error_code``),
answered with that code's status in :data:`gateway.groups.codes.REFUSALS` (the row's
status is unused) and, without the host's text, the code in words (``{refusal}``)."""


@dataclass(frozen=True)
class Failure:
    """One answer. ``message`` may name ``{doing}`` and ``{name}`` (the command) and
    ``{status}`` (the device's); ``reconnecting`` is the answer instead while the device's
    lost connection is being restored (its status is ``disconnected``)."""

    status: int
    code: str
    message: str
    host_text: HostText = HostText.REPLACES
    reconnecting: Failure | None = None


@dataclass(frozen=True)
class FamilyTable:
    """Every answer of one family of commands."""

    envelope: Envelope
    rows: MappingProxyType[ErrorKind, Failure]
    no_reply: Failure
    incomplete: Failure
    otherwise: Failure
    commands: frozenset[CommandName] = field(default_factory=frozenset)

    def failure(self, kind: ErrorKind) -> Failure:
        """The answer to a reply of ``kind``."""
        return self.rows.get(kind, self.otherwise)

    def answers(self) -> tuple[Failure, ...]:
        """Every answer this family can give, a ``REFUSED`` one excepted (its code is the
        refusal's: each route names the refusals it meets)."""
        found: list[Failure] = []
        for failure in (*self.rows.values(), self.no_reply, self.incomplete, self.otherwise):
            if failure.code == REFUSAL:
                continue
            found.append(failure)
            if failure.reconnecting is not None:
                found.append(failure.reconnecting)
        return tuple(dict.fromkeys(found))


class Family(StrEnum):
    """Commands answered alike."""

    DEVICE = "device"  # session lifecycle, receipts, stories: the standard answers
    PAIRING = "pairing"  # QR code, pair code: refused on a paired device
    RECONNECT = "reconnect"  # 409 when there is nothing to reconnect
    SEND = "send"  # a network failure of a send is SEND_FAILED
    DELETE_MESSAGE = "delete_message"  # the specification's message codes
    SYNC_HISTORY = "sync_history"
    GROUP_CREATE = "group_create"  # the group families differ in their network failure's code
    GROUP_CHANGE = "group_change"
    GROUP_INVITE = "group_invite"
    GROUP_READ = "group_read"  # ... and a read that timed out changed nothing
    PRIVACY_READ = "privacy_read"
    PRIVACY_SET = "privacy_set"
    # Reactions and edits.
    REACT_MESSAGE = "react_message"
    EDIT_MESSAGE = "edit_message"
    # Presence and profile of the linked account.
    PROFILE = "profile"  # the standard answers
    # Contacts.
    CONTACTS = "contacts"  # number checks, the blocklist: the standard answers
    CONTACT = "contact"  # one account: 404 CONTACT_NOT_FOUND when the network has none
    # Calls.
    CALLS = "calls"  # a call the network does not know ringing is CALL_NOT_FOUND


DOING: MappingProxyType[CommandName, str] = MappingProxyType(
    {
        CommandName.CREATE_GROUP: "create a group",
        CommandName.LIST_GROUPS: "list the groups",
        CommandName.GROUP_INFO: "read the group",
        CommandName.GROUP_PARTICIPANTS: "change the group's participants",
        CommandName.UPDATE_GROUP: "change the group's settings",
        CommandName.GROUP_PICTURE: "set the group's picture",
        CommandName.GROUP_EPHEMERAL: "set the disappearing-message timer",
        CommandName.GROUP_INVITE: "get or reset the invite link",
        CommandName.JOIN_GROUP: "join the group",
        CommandName.LEAVE_GROUP: "leave the group",
        CommandName.LINK_GROUP: "link the group into the community",
        CommandName.UNLINK_GROUP: "unlink the group from the community",
        CommandName.GROUP_REQUESTS: "list the join requests",
        CommandName.ANSWER_GROUP_REQUESTS: "answer the join requests",
        CommandName.GET_STATUS_PRIVACY: "read the story privacy",
        CommandName.SET_STATUS_PRIVACY: "set the story privacy",
    }
)
"""What a command of the lowercase families does, as their messages name it (``{doing}``)."""

_RETRY_OR_QUOTE = "retry later, and quote the X-Request-Id if it persists"
_RECONNECTING = Failure(
    503,
    ErrorCode.DEVICE_DISCONNECTED,
    "the device's connection was lost; it reconnects by itself, retry later",
)
NOT_CONNECTED = Failure(
    503,
    ErrorCode.DEVICE_NOT_READY,
    "the device is not connected (status {status})",
    reconnecting=_RECONNECTING,
)
"""A device whose session cannot serve, known from the reply or from its record."""

_STANDARD_ROWS: dict[ErrorKind, Failure] = {
    ErrorKind.NOT_RUNNING: Failure(
        503,
        ErrorCode.DEVICE_NOT_READY,
        "the device's session is not running: connect the device first",
        HostText.HIDDEN,
        reconnecting=_RECONNECTING,
    ),
    ErrorKind.NOT_CONNECTED: NOT_CONNECTED,
    ErrorKind.INVALID: Failure(400, ErrorCode.VALIDATION_ERROR, "the messaging network refused the input"),
    ErrorKind.NETWORK: Failure(
        502, ErrorCode.NETWORK_ERROR, "the messaging network refused or failed the operation"
    ),
    ErrorKind.TIMEOUT: Failure(
        503, ErrorCode.SERVICE_UNAVAILABLE, "the messaging network did not answer in time; retry later"
    ),
    ErrorKind.RATE_LIMITED: Failure(
        429, ErrorCode.RATE_LIMITED, "the messaging network throttled the operation; retry later"
    ),
    ErrorKind.UNSUPPORTED: Failure(
        501, ErrorCode.UNSUPPORTED_OPERATION, "the messaging network adapter cannot do this"
    ),
    ErrorKind.NOT_FOUND: Failure(404, ErrorCode.NOT_FOUND, "the messaging network does not know the target"),
    ErrorKind.HOST_FULL: Failure(
        503,
        ErrorCode.SERVICE_UNAVAILABLE,
        "the session host that took the request runs as many devices as it may; retry (another host "
        "may have room) or add session hosts",
    ),
}


def _standard(commands: set[CommandName], **overrides: Failure) -> FamilyTable:
    rows = {**_STANDARD_ROWS, **{ErrorKind(kind): failure for kind, failure in overrides.items()}}
    return FamilyTable(
        envelope=Envelope.STANDARD,
        rows=MappingProxyType(rows),
        no_reply=Failure(
            503,
            ErrorCode.SERVICE_UNAVAILABLE,
            "the device's session host did not answer in time; retry later",
        ),
        incomplete=Failure(
            500, ErrorCode.DEVICE_ERROR, "the device's session host gave an incomplete answer"
        ),
        otherwise=Failure(
            500,
            ErrorCode.DEVICE_ERROR,
            f"the device could not be acquired; {_RETRY_OR_QUOTE}",
            HostText.HIDDEN,
        ),
        commands=frozenset(commands),
    )


def _operation(
    commands: set[CommandName],
    *,
    network_failure: OperationCode,
    timeout_code: OperationCode,
    unclear: str,
    rows: dict[ErrorKind, Failure],
) -> FamilyTable:
    """A lowercase family; ``unclear`` is what a timeout says of the outcome."""
    timed_out = _op(timeout_code, f"no answer in time to {{doing}}: {unclear}", HostText.HIDDEN)
    return FamilyTable(
        envelope=Envelope.OPERATION,
        rows=MappingProxyType(
            {
                ErrorKind.NOT_CONNECTED: _DEVICE_DISCONNECTED,
                ErrorKind.NOT_RUNNING: _DEVICE_DISCONNECTED,
                ErrorKind.RATE_LIMITED: _op(
                    OperationCode.RATE_LIMITED, "the messaging network throttled the operation; retry later"
                ),
                ErrorKind.UNSUPPORTED: _op(
                    OperationCode.UNSUPPORTED_OPERATION,
                    "{name}: this deployment's network adapter cannot {doing}",
                    HostText.APPENDED,
                ),
                ErrorKind.NETWORK: _op(network_failure, "the messaging network failed to {doing}"),
                ErrorKind.TIMEOUT: timed_out,
                **rows,
            }
        ),
        no_reply=timed_out,
        incomplete=_op(
            OperationCode.DEVICE_ERROR, "the device's session host gave an incomplete answer to {doing}"
        ),
        otherwise=_op(
            OperationCode.DEVICE_ERROR,
            f"the device's session host failed to {{doing}}; {_RETRY_OR_QUOTE}",
            HostText.HIDDEN,
        ),
        commands=frozenset(commands),
    )


def _op(code: OperationCode, message: str, host_text: HostText = HostText.REPLACES) -> Failure:
    """A row of a lowercase family: the code's status is :data:`gateway.groups.codes.STATUS`'."""
    return Failure(codes.STATUS[code], code, message, host_text)


_DEVICE_DISCONNECTED = _op(
    OperationCode.DEVICE_DISCONNECTED, "the device is not connected: connect it, or wait while it reconnects"
)
_GROUP_ROWS = {
    ErrorKind.REFUSED: Failure(400, REFUSAL, "{refusal}"),
    ErrorKind.NOT_FOUND: _op(
        OperationCode.GROUP_NOT_FOUND, "the group does not exist, or the device is not in it"
    ),
    ErrorKind.INVALID: _op(OperationCode.INVALID_REQUEST, "the messaging network refused the input"),
}
_CHANGE_UNCLEAR = "the change may or may not have been made: read the group before retrying"
_NOTHING_CHANGED = "nothing was changed; retry"
_PRIVACY_ROWS = {
    ErrorKind.INVALID: _op(OperationCode.INVALID_REQUEST, "the messaging network refused the setting")
}


def _group(commands: set[CommandName], network_failure: OperationCode, unclear: str) -> FamilyTable:
    return _operation(
        commands,
        network_failure=network_failure,
        timeout_code=OperationCode.OPERATION_TIMEOUT,
        unclear=unclear,
        rows=_GROUP_ROWS,
    )


def _privacy(commands: set[CommandName], unclear: str) -> FamilyTable:
    return _operation(
        commands,
        network_failure=OperationCode.PRIVACY_UPDATE_FAILED,
        timeout_code=OperationCode.PRIVACY_UPDATE_TIMEOUT,
        unclear=unclear,
        rows=_PRIVACY_ROWS,
    )


TABLE: MappingProxyType[Family, FamilyTable] = MappingProxyType(
    {
        Family.DEVICE: _standard(
            {
                CommandName.CONNECT,
                CommandName.DISCONNECT,
                CommandName.LOGOUT,
                CommandName.DELETE,
                CommandName.PING,
                CommandName.MARK_READ,
                CommandName.PUBLISH_STATUS,
            }
        ),
        Family.PAIRING: _standard(
            {CommandName.QR, CommandName.PAIR_PHONE},
            already_logged_in=Failure(
                409, ErrorCode.ALREADY_LOGGED_IN, "the device is already paired; log out to pair it again"
            ),
        ),
        Family.RECONNECT: _standard(
            {CommandName.RECONNECT},
            conflict=Failure(
                409,
                ErrorCode.CONFLICT,
                "the device is connected, or was never paired and is not dialing: nothing to reconnect",
            ),
        ),
        Family.SEND: _standard(
            {CommandName.SEND_TEXT},
            network=Failure(500, ErrorCode.SEND_FAILED, "sending to the network failed"),
        ),
        Family.DELETE_MESSAGE: _standard(
            {CommandName.DELETE_MESSAGE},
            not_found=Failure(
                404,
                ErrorCode.MESSAGE_NOT_FOUND,
                "the device sent no such message in that chat, or it was already deleted",
            ),
            expired=Failure(
                400,
                ErrorCode.DELETE_TIME_EXPIRED,
                "the window to delete this message for everyone has passed; it can still be deleted for me",
            ),
            network=Failure(500, ErrorCode.DELETE_FAILED, "the messaging network failed the delete"),
        ),
        Family.SYNC_HISTORY: _standard(
            {CommandName.SYNC_HISTORY},
            network=Failure(
                502, ErrorCode.SYNC_REQUEST_FAILED, "the messaging network failed the history request"
            ),
        ),
        Family.GROUP_CREATE: _group({CommandName.CREATE_GROUP}, OperationCode.CREATE_FAILED, _CHANGE_UNCLEAR),
        Family.GROUP_CHANGE: _group(
            {
                CommandName.GROUP_PARTICIPANTS,
                CommandName.UPDATE_GROUP,
                CommandName.GROUP_PICTURE,
                CommandName.GROUP_EPHEMERAL,
                CommandName.LEAVE_GROUP,
                CommandName.LINK_GROUP,
                CommandName.UNLINK_GROUP,
                CommandName.ANSWER_GROUP_REQUESTS,
            },
            OperationCode.UPDATE_FAILED,
            _CHANGE_UNCLEAR,
        ),
        Family.GROUP_INVITE: _group(
            {CommandName.GROUP_INVITE, CommandName.JOIN_GROUP}, OperationCode.INVITE_FAILED, _CHANGE_UNCLEAR
        ),
        Family.GROUP_READ: _group(
            {CommandName.LIST_GROUPS, CommandName.GROUP_INFO, CommandName.GROUP_REQUESTS},
            OperationCode.FETCH_FAILED,
            _NOTHING_CHANGED,
        ),
        Family.PRIVACY_READ: _privacy({CommandName.GET_STATUS_PRIVACY}, _NOTHING_CHANGED),
        Family.PRIVACY_SET: _privacy(
            {CommandName.SET_STATUS_PRIVACY},
            "the setting may or may not have changed: read it before retrying",
        ),
        # Presence and profile of the linked account.
        Family.PROFILE: _standard(
            {
                CommandName.SET_PRESENCE,
                CommandName.SUBSCRIBE_PRESENCE,
                CommandName.GET_PROFILE,
                CommandName.UPDATE_PROFILE,
                CommandName.SET_PROFILE_PICTURE,
            }
        ),
        # Contacts.
        Family.CONTACTS: _standard({CommandName.CHECK_CONTACTS, CommandName.GET_BLOCKLIST}),
        Family.CONTACT: _standard(
            {CommandName.GET_CONTACT, CommandName.BLOCK_CONTACT, CommandName.UNBLOCK_CONTACT},
            not_found=Failure(
                404, ErrorCode.CONTACT_NOT_FOUND, "no account of the messaging network has that number"
            ),
        ),
        # Calls.
        Family.CALLS: _standard(
            {CommandName.REJECT_CALL},
            not_found=Failure(
                404,
                ErrorCode.CALL_NOT_FOUND,
                "no such call from that caller rings for the device",
                HostText.HIDDEN,
            ),
        ),
        # Reactions and edits.
        Family.REACT_MESSAGE: _standard(
            {CommandName.REACT_MESSAGE},
            not_found=Failure(
                404,
                ErrorCode.MESSAGE_NOT_FOUND,
                "no such message in that chat (a group message the device did not send needs sender_jid)",
            ),
        ),
        Family.EDIT_MESSAGE: _standard(
            {CommandName.EDIT_MESSAGE},
            not_found=Failure(
                404,
                ErrorCode.MESSAGE_NOT_FOUND,
                "the device sent no such text in that chat, or it was deleted",
            ),
            expired=Failure(
                400, ErrorCode.EDIT_TIME_EXPIRED, "the network's window to edit this message has passed"
            ),
        ),
    }
)
"""Every family's answers (a test keeps every command in exactly one family)."""

_FAMILY_OF = MappingProxyType({name: family for family, table in TABLE.items() for name in table.commands})


def family_of(name: CommandName) -> Family:
    """The family of the command ``name``."""
    return _FAMILY_OF[name]


def table_of(name: CommandName) -> FamilyTable:
    """The answers of the command ``name``'s family."""
    return TABLE[_FAMILY_OF[name]]


# --- the answers: a row as the error raised, and as what a route documents ---------------


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
