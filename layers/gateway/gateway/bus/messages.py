"""What travels on the command bus: commands, replies, and their JSON form.

A command's ``args`` and a reply's ``result`` are the models of the command's contract
(:mod:`gateway.bus.contracts`), parsed once where they arrive: the host parses a command's
arguments before any handler runs (:func:`read_command`), the API parses a reply's result
against the command it sent (:func:`read_reply`).

The wire form carries its version (``v``, :data:`WIRE_VERSION`). Readers check it: a message
of a version they do not know is refused, never read as if it were theirs (the host answers
such a command ``unsupported``, the API takes such a reply as ``host_error``). How a version
change is rolled out: "Command bus" in docs/architecture.md.

A failure's kind is a :class:`~gateway.failures.kinds.ErrorKind`; a ``REFUSED`` one names
its group code in ``error_code``.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Generic

from pydantic import ValidationError

from gateway.bus.contracts import CONTRACTS, A, CommandName, R
from gateway.failures.kinds import ErrorKind

WIRE_VERSION = 1
"""The version of the wire form this code writes and reads (and the only one it reads)."""

GROUP_COMMANDS: frozenset[CommandName] = frozenset(
    {
        CommandName.CREATE_GROUP,
        CommandName.LIST_GROUPS,
        CommandName.GROUP_INFO,
        CommandName.GROUP_PARTICIPANTS,
        CommandName.UPDATE_GROUP,
        CommandName.GROUP_PICTURE,
        CommandName.GROUP_EPHEMERAL,
        CommandName.GROUP_INVITE,
        CommandName.JOIN_GROUP,
        CommandName.LEAVE_GROUP,
        CommandName.LINK_GROUP,
        CommandName.UNLINK_GROUP,
        CommandName.GROUP_REQUESTS,
        CommandName.ANSWER_GROUP_REQUESTS,
    }
)
"""The commands of groups and communities (their names are also the simulator's fault names)."""


@dataclass(frozen=True)
class DeviceSnapshot:
    """A device's session state as the host saw it when it answered.

    The field names are the device record's and the API view's, so both take it as it is
    (``dataclasses.asdict``).
    """

    status: str
    is_connected: bool
    is_logged_in: bool
    messaging_jid: str | None


@dataclass(frozen=True)
class Command(Generic[A]):
    """One command for one device; ``deadline`` is epoch seconds on the sender's clock, and
    ``args`` the model of the command's contract (on the wire without its null fields: every
    field that may be null defaults to null, a unit test checks it)."""

    name: CommandName
    tenant_id: str
    device_id: str
    deadline: float
    args: A
    reply_to: str | None = None
    id: str = field(default_factory=lambda: uuid.uuid4().hex)

    def expired(self, now: float | None = None) -> bool:
        """A command past its deadline is never executed: the sender has stopped waiting."""
        return (time.time() if now is None else now) >= self.deadline

    def to_json(self) -> str:
        wire = {
            "v": WIRE_VERSION,
            "name": self.name.value,
            "tenant_id": self.tenant_id,
            "device_id": self.device_id,
            "deadline": self.deadline,
            "reply_to": self.reply_to,
            "args": self.args.model_dump(mode="json", exclude_none=True),
            "id": self.id,
        }
        return json.dumps(wire, separators=(",", ":"))


@dataclass(frozen=True)
class Reply(Generic[R]):
    """The host's answer to a command: a ``result`` (the model of the command's contract),
    or an error ``kind`` and ``message`` (and for a ``REFUSED`` kind, the group ``code`` of
    the refusal). A success without a result is one whose result the bus client found out of
    its contract (:class:`UnreadableReply`): callers answer it as incomplete."""

    command_id: str
    ok: bool
    result: R | None = None
    error_kind: ErrorKind | None = None
    error_message: str | None = None
    device: DeviceSnapshot | None = None
    error_code: str | None = None

    @classmethod
    def success(cls, command: Command[Any], result: R, device: DeviceSnapshot | None) -> Reply[R]:
        return cls(command_id=command.id, ok=True, result=result, device=device)

    @classmethod
    def failure(
        cls,
        command: Command[Any],
        kind: ErrorKind,
        message: str,
        device: DeviceSnapshot | None,
        *,
        code: str | None = None,
    ) -> Reply[Any]:
        return Reply(
            command_id=command.id,
            ok=False,
            error_kind=kind,
            error_message=message,
            device=device,
            error_code=code,
        )

    def to_json(self) -> str:
        wire = {
            "v": WIRE_VERSION,
            "command_id": self.command_id,
            "ok": self.ok,
            "result": self.result.model_dump(mode="json") if self.result is not None else None,
            "error_kind": self.error_kind,
            "error_message": self.error_message,
            "device": asdict(self.device) if self.device is not None else None,
            "error_code": self.error_code,
        }
        return json.dumps(wire, separators=(",", ":"))


class Unreadable(StrEnum):
    """Why a command cannot be read."""

    MALFORMED = "malformed"  # not a command of the bus
    VERSION = "version"  # a wire version this side does not read
    NAME = "name"  # a command this side does not know
    ARGS = "args"  # arguments that are not the command's contract


class UnreadableCommand(Exception):
    """A command message that cannot be read; what could be read of it, to answer it.

    ``command_id``, ``reply_to`` and ``deadline`` are None when the message does not say them
    (then nobody can be answered); ``name`` and ``device_id`` are for the log only.
    """

    def __init__(self, why: Unreadable, message: str, raw: Any = None) -> None:
        super().__init__(message)
        self.why = why
        heading = raw if isinstance(raw, dict) else {}
        self.command_id = _text(heading.get("id"))
        self.reply_to = _text(heading.get("reply_to"))
        deadline = heading.get("deadline")
        self.deadline = float(deadline) if isinstance(deadline, int | float) else None
        self.name = _text(heading.get("name"))
        self.device_id = _text(heading.get("device_id"))


class UnreadableReply(Exception):
    """A reply to a command of this process that cannot be read: one of another version or
    without its fields, or a success whose result is not the command's contract (``incomplete``,
    with the device's state it carried)."""

    def __init__(
        self,
        command_id: str,
        message: str,
        *,
        incomplete: bool = False,
        device: DeviceSnapshot | None = None,
    ) -> None:
        super().__init__(message)
        self.command_id = command_id
        self.incomplete = incomplete
        self.device = device

    def as_reply(self) -> Reply[Any]:
        """What the caller gets instead: a success without its result when the result was out
        of contract (the API answers it as the failure table's incomplete answer), else the
        host's failure."""
        if self.incomplete:
            return Reply(self.command_id, ok=True, result=None, device=self.device)
        return Reply(self.command_id, ok=False, error_kind=ErrorKind.HOST_ERROR, error_message=str(self))


def read_command(body: str) -> Command[Any]:
    """The command of a message body, its arguments parsed by the command's contract.

    Raises
    ------
    UnreadableCommand
        When the body is not a command, or is one of another wire version, of an unknown
        name, or with arguments its contract refuses.
    """
    try:
        raw = json.loads(body)
    except ValueError:
        raise UnreadableCommand(Unreadable.MALFORMED, "the message is not JSON") from None
    if not isinstance(raw, dict):
        raise UnreadableCommand(Unreadable.MALFORMED, "the message is not a JSON object")
    if raw.get("v") != WIRE_VERSION:
        message = f"this session host reads wire version {WIRE_VERSION}, not {raw.get('v')!r}"
        raise UnreadableCommand(Unreadable.VERSION, message, raw)
    try:
        name = CommandName(str(raw.get("name")))
    except ValueError:
        raise UnreadableCommand(
            Unreadable.NAME, f"this session host does not know the command {raw.get('name')!r}", raw
        ) from None
    try:
        tenant_id, device_id = raw["tenant_id"], raw["device_id"]
        command_id, deadline, reply_to = raw["id"], float(raw["deadline"]), raw.get("reply_to")
    except (KeyError, TypeError, ValueError):
        raise UnreadableCommand(
            Unreadable.MALFORMED, "the command lacks its id, device or deadline", raw
        ) from None
    if not all(isinstance(value, str) for value in (tenant_id, device_id, command_id)):
        raise UnreadableCommand(Unreadable.MALFORMED, "the command's id and device are not texts", raw)
    try:
        args = CONTRACTS[name].args.model_validate(raw.get("args", {}))
    except ValidationError as error:
        raise UnreadableCommand(
            Unreadable.ARGS, f"the arguments of {name.value} are not its contract's: {_fields(error)}", raw
        ) from None
    return Command(name, tenant_id, device_id, deadline, args, _text(reply_to), command_id)


def read_reply(raw: dict[str, Any], result: type[R]) -> Reply[R]:
    """The reply of a parsed message body (``raw``, whose ``command_id`` was read), its
    result parsed as ``result`` (the contract's of the command it answers).

    Raises
    ------
    UnreadableReply
        A reply of another wire version, one without its fields, or whose result is not
        ``result`` (then ``incomplete``).
    """
    command_id = str(raw["command_id"])
    if raw.get("v") != WIRE_VERSION:
        raise UnreadableReply(
            command_id, f"a reply of wire version {raw.get('v')!r}; this side reads {WIRE_VERSION}"
        )
    try:
        device = raw.get("device")
        snapshot = DeviceSnapshot(**device) if device else None
        ok = raw["ok"]
    except (KeyError, TypeError):
        raise UnreadableReply(command_id, "the reply lacks its outcome or has a malformed device") from None
    if not ok:
        kind = ErrorKind.read(str(raw.get("error_kind")))
        return Reply(
            command_id,
            ok=False,
            error_kind=kind,
            error_message=_text(raw.get("error_message")),
            device=snapshot,
            error_code=_text(raw.get("error_code")),
        )
    try:
        parsed = result.model_validate(raw.get("result") or {})
    except ValidationError as error:
        message = f"the result is not the command's contract: {_fields(error)}"
        raise UnreadableReply(command_id, message, incomplete=True, device=snapshot) from None
    return Reply(command_id, ok=True, result=parsed, device=snapshot)


def _fields(error: ValidationError) -> str:
    """Where and why a model refused its input, never the input (a send's text is the tenant's)."""
    return "; ".join(
        f"{'.'.join(map(str, problem['loc'])) or 'the object'}: {problem['msg']}"
        for problem in error.errors(include_url=False, include_input=False)
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
