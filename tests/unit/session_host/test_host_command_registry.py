"""The session host's command registry: every command has exactly one handler, and a command
registered without an idle policy never starts a session."""

from __future__ import annotations

import asyncio
import time
from typing import Any, cast

import pytest

from gateway.bus import Command, CommandName, Reply, contracts
from gateway.bus.contracts import Done
from gateway.bus.contracts.messages import MarkReadArgs
from gateway.bus.contracts.sessions import Pong
from gateway.failures.kinds import ErrorKind
from gateway.leases import Lease
from session_host.commands import CommandExecutor, Forward, Later
from session_host.commands.registry import NOT_EXECUTED, REGISTRY, CommandRegistry, Host, needs_a_session
from session_host.device_tenure import OwnedDevice
from session_host.network.port import NetworkError
from session_host.ownership import Ownership


def test_every_command_has_one_handler_or_is_declared_not_executed() -> None:
    # Given every command the bus carries
    names = set(CommandName)
    # Then each has a handler on the host, or says why it has none; never both
    missing = names - REGISTRY.names - set(NOT_EXECUTED)
    assert not missing, f"commands without a handler on the session host: {sorted(missing)}"
    assert not REGISTRY.names & set(NOT_EXECUTED)


async def _served(_host: Host, command: Command[Any], _owned: OwnedDevice) -> Reply[Any]:
    return Reply.success(command, Done(), None)


def test_a_command_has_one_handler() -> None:
    # Given a registry with a handler for MARK_READ
    registry = CommandRegistry()
    registry.handles(contracts.MARK_READ)(_served)
    # When a second one is registered, or one for a command the dispatcher answers, Then it is refused
    with pytest.raises(ValueError, match="mark_read"):
        registry.handles(contracts.MARK_READ)(_served)
    with pytest.raises(ValueError, match="ping"):
        registry.handles(contracts.PING)(_served)


class _Ownership:
    """Just enough of :class:`Ownership` for a device no session on this host runs."""

    def __init__(self, holder_queue: str | None) -> None:
        self.devices: dict[str, OwnedDevice] = {}
        self._holder = Lease("d1", "t1", "host-b", holder_queue, 1, "tenure-b") if holder_queue else None
        self.acquired = 0

    async def holder(self, device_id: str) -> Lease | None:
        return self._holder

    async def acquire(self, tenant_id: str, device_id: str) -> Lease | None:
        self.acquired += 1
        return None


_READ = MarkReadArgs(chat_jid="1@s.whatsapp.net", sender_jid="1@s.whatsapp.net", message_ids=["M1"])


def _execute(registry: CommandRegistry, ownership: _Ownership) -> Any:
    command = Command(CommandName.MARK_READ, "t1", "d1", deadline=time.time() + 30, args=_READ)
    executor = CommandExecutor(cast(Ownership, ownership), registry)
    return asyncio.run(executor.execute(command))


def test_by_default_a_device_running_nowhere_here_is_forwarded_or_refused_never_started() -> None:
    # Given a command registered without an idle policy
    registry = CommandRegistry()
    registry.handles(contracts.MARK_READ)(_served)
    handler = registry.get(CommandName.MARK_READ)
    assert handler is not None
    assert handler.on_idle is needs_a_session

    # When the device runs on another host, Then the command goes to that host's queue
    elsewhere = _Ownership("https://queue/host-b")
    assert _execute(registry, elsewhere) == Forward("https://queue/host-b")

    # When it runs nowhere, Then NOT_RUNNING; and neither case took the device
    nowhere = _Ownership(None)
    reply = _execute(registry, nowhere)
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.NOT_RUNNING)
    assert elsewhere.acquired == nowhere.acquired == 0


def test_a_command_without_a_handler_is_a_host_error() -> None:
    # Given a host that knows no handler for the command (an older host, a newer API)
    reply = _execute(CommandRegistry(), _Ownership(None))
    # Then it answers host_error rather than guessing what to do with the device
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.HOST_ERROR)


def test_a_later_reply_is_awaited_by_finish_and_a_network_failure_there_is_the_answer() -> None:
    # Given a handler that answers Later, once with a reply and once with a network failure

    async def answer(command: Command[Any]) -> Reply[Any]:
        return Reply.success(command, Done(), None)

    async def refuse(_command: Command[Any]) -> Reply[Any]:
        raise NetworkError(ErrorKind.TIMEOUT, "too slow")

    async def scenario() -> list[Reply[Any]]:
        executor = CommandExecutor(cast(Ownership, _Ownership(None)), CommandRegistry())
        command = Command(CommandName.MARK_READ, "t1", "d1", deadline=time.time() + 30, args=_READ)
        # When the caller, having let the device's lock go, finishes them
        return [
            await executor.finish(command, Later(answer(command))),
            await executor.finish(command, Later(refuse(command))),
        ]

    late, refused = asyncio.run(scenario())
    # Then the first is the handler's reply and the second a failure of that kind
    assert late.ok
    assert late.result == Done()
    assert (refused.ok, refused.error_kind) == (False, ErrorKind.TIMEOUT)


def test_a_result_out_of_the_contract_is_a_host_error_not_sent_as_a_success() -> None:
    # Given a handler of MARK_READ (whose result is Done) that answers another command's result
    async def wrong(_host: Host, command: Command[Any], _owned: OwnedDevice) -> Reply[Any]:
        return Reply.success(command, Pong(host_id="h"), None)

    async def idle(_host: Host, command: Command[Any]) -> Reply[Any]:
        return await wrong(_host, command, cast(OwnedDevice, None))

    registry = CommandRegistry()
    registry.handles(contracts.MARK_READ, when_idle=idle)(wrong)
    # When it runs
    reply = _execute(registry, _Ownership(None))
    # Then the API gets host_error, never a success it would misread
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.HOST_ERROR)
