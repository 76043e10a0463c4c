"""The command bus's wire as unit tests use it: what a command's arguments look like on the
wire and what the bus client makes of a host's answer (parsed by the command's contract, as
:class:`gateway.bus.client.ReplyInbox` does), for stand-in buses; and a command as the session
host reads it, and its reply as the host sends it, for tests of the host's handlers."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict
from typing import Any

from gateway.bus import Command, CommandName, Reply
from gateway.bus.contracts import CommandArgs, Contract
from gateway.bus.messages import WIRE_VERSION, UnreadableReply, read_command, read_reply
from gateway.failures.kinds import ErrorKind


def wire_args(contract: Contract[Any, Any], args: CommandArgs | None) -> dict[str, Any]:
    """The arguments as the command carries them (JSON)."""
    given = contract.args() if args is None else args
    return json.loads(given.model_dump_json(exclude_none=True))


def received(contract: Contract[Any, Any], answer: Reply[Any]) -> Reply[Any]:
    """The reply the bus client returns for ``answer``, whose ``result`` may be the host's
    JSON (a dict) or a result model, as it comes off the wire."""
    result = answer.result
    raw = {
        "v": WIRE_VERSION,
        "command_id": answer.command_id,
        "ok": answer.ok,
        "result": result if isinstance(result, dict | None) else result.model_dump(mode="json"),
        "error_kind": answer.error_kind,
        "error_message": answer.error_message,
        "device": asdict(answer.device) if answer.device is not None else None,
        "error_code": answer.error_code,
    }
    try:
        return read_reply(json.loads(json.dumps(raw)), contract.result)
    except UnreadableReply as unreadable:
        return unreadable.as_reply()


def command(
    name: CommandName, args: dict[str, Any], *, tenant_id: str, device_id: str, seconds: float = 30
) -> Command[Any]:
    """The command as the session host reads it off the wire: ``args`` (JSON) parsed by the
    command's contract (:func:`~gateway.bus.messages.read_command`; it raises
    ``UnreadableCommand`` for arguments the contract refuses)."""
    wire = {
        "v": WIRE_VERSION,
        "name": name.value,
        "tenant_id": tenant_id,
        "device_id": device_id,
        "deadline": time.time() + seconds,
        "args": args,
        "id": uuid.uuid4().hex,
    }
    return read_command(json.dumps(wire))


def on_the_wire(reply: Reply[Any]) -> Reply[Any]:
    """``reply`` with its result as the JSON the host sends (a dict), for tests that read
    the result as the API receives it."""
    raw = json.loads(reply.to_json())
    return Reply(
        raw["command_id"],
        ok=raw["ok"],
        result=raw["result"],
        error_kind=ErrorKind.read(raw["error_kind"]) if raw["error_kind"] else None,
        error_message=raw["error_message"],
        device=reply.device,
        error_code=raw["error_code"],
    )
