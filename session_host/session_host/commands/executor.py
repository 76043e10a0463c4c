"""Executing device commands: find the command's handler and give it the device, running
here or not.

The caller holds the device's lock, so commands of one device run one after the other.
Commands on a running session are answered from memory (``qr``, a ``connect`` that is a
no-op) or with only the network call they need. A device another live host runs is not
touched: the command is forwarded to that host's queue.
"""

from __future__ import annotations

from typing import Any

from gateway.bus import Command, Reply
from gateway.failures.kinds import ErrorKind
from gateway.observability import logger
from session_host.commands.context import Host, Later, Outcome, failed
from session_host.commands.registry import REGISTRY, CommandRegistry, Handler
from session_host.device_tenure import session_snapshot
from session_host.network.port import NetworkError
from session_host.ownership import Ownership


class CommandExecutor:
    def __init__(self, ownership: Ownership, registry: CommandRegistry = REGISTRY) -> None:
        self._host = Host(ownership)
        self._registry = registry

    async def execute(self, command: Command[Any]) -> Outcome:
        """Run ``command`` (the caller holds the device's lock); its arguments were parsed
        by its contract when it was read.

        A network failure is the command's answer, with the device's state when it has a
        session here; any other exception is the caller's to report.
        """
        if command.expired():  # it waited behind another command of the device for too long
            return None
        handler = self._registry.get(command.name)
        if handler is None:
            return failed(command, ErrorKind.HOST_ERROR, f"unknown command {command.name}")
        devices = self._host.own.devices
        owned = devices.get(command.device_id)
        outcome: Outcome
        try:
            if owned is not None:
                outcome = await handler.on_running(self._host, command, owned)
            else:
                outcome = await handler.on_idle(self._host, command)
        except NetworkError as error:
            return self._network_failure(command, error)
        return _checked(handler, command, outcome) if isinstance(outcome, Reply) else outcome

    async def finish(self, command: Command[Any], later: Later) -> Reply[Any]:
        """The reply of a handler that answered :class:`Later` (the caller has let the
        device's lock go); a network failure is the answer, as in :meth:`execute`."""
        try:
            reply = await later.reply
        except NetworkError as error:
            return self._network_failure(command, error)
        handler = self._registry.get(command.name)
        return reply if handler is None else _checked(handler, command, reply)

    def _network_failure(self, command: Command[Any], error: NetworkError) -> Reply[Any]:
        owned = self._host.own.devices.get(command.device_id)
        snapshot = session_snapshot(owned.session) if owned else None
        return failed(command, error.kind, str(error), snapshot, code=error.code)


def _checked(handler: Handler[Any], command: Command[Any], reply: Reply[Any]) -> Reply[Any]:
    """``reply``, unless it is a success whose result is not the contract's: a fault of the
    handler, answered ``host_error`` rather than sent for the API to misread."""
    if not reply.ok or isinstance(reply.result, handler.result):
        return reply
    about = {"command": command.name.value, "command_id": command.id, "result": type(reply.result).__name__}
    logger.error("a handler answered a result that is not its contract's", extra=about)
    return failed(command, ErrorKind.HOST_ERROR, "the session host answered out of contract", reply.device)
