"""Which handler executes each device command, and executing it with that handler.

A command is one handler in the module of its area, registered with :func:`handles` for the
command's contract (:mod:`gateway.bus.contracts`)::

    @handles(contracts.MARK_READ)
    async def mark_read(host: Host, command: Command[MarkReadArgs], owned: OwnedDevice): ...

``command.args`` is the contract's arguments model, parsed before the handler runs
(``gateway.bus.messages.read_command``); the reply's result is the contract's result model
(the executor checks it). The decorated function serves the command on a session this host
runs. ``when_idle`` says what happens when no session runs here; by default
(:func:`.context.needs_a_session`) the command goes to the host that runs the device and
never starts a session, which is what operations on the network (sends, groups, status) want.
Every :class:`CommandName` has a handler or is listed in :data:`NOT_EXECUTED` (a test checks
it), so the executor never needs to know one command from another.

:class:`CommandExecutor` gives a command's handler the device, running here or not. The
caller holds the device's lock, so commands of one device run one after the other. Commands
on a running session are answered from memory (``qr``, a ``connect`` that is a no-op) or
with only the network call they need. A device another live host runs is not touched: the
command is forwarded to that host's queue.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic

from gateway.bus import Command, CommandName, Reply
from gateway.bus.contracts import A, CommandResult, Contract
from gateway.failures.kinds import ErrorKind
from gateway.observability import logger
from session_host.commands.context import Host, Later, Outcome, failed, needs_a_session
from session_host.device_tenure import OwnedDevice, session_snapshot
from session_host.network.port import NetworkError
from session_host.ownership import Ownership

OnRunning = Callable[[Host, Command[A], OwnedDevice], Awaitable[Reply[Any] | Later]]
"""Serve a command on the session this host runs for the device (the device's lock is held;
a :class:`~.context.Later` answers after it is let go)."""
OnIdle = Callable[[Host, Command[A]], Awaitable[Outcome]]
"""Serve a command for a device no session on this host runs."""

NOT_EXECUTED: Mapping[CommandName, str] = MappingProxyType(
    {CommandName.PING: "answered by the dispatcher at once: it names no device and touches no network"}
)
"""Commands that never reach a handler, and why."""


@dataclass(frozen=True)
class Handler(Generic[A]):
    name: CommandName
    on_running: OnRunning[A]
    on_idle: OnIdle[A]
    result: type[CommandResult]
    """The model a successful reply's result must be (the contract's)."""


class CommandRegistry:
    """Handlers by command name; one each."""

    def __init__(self) -> None:
        self._handlers: dict[CommandName, Handler[Any]] = {}

    def handles(
        self, contract: Contract[A, Any], *, when_idle: OnIdle[A] = needs_a_session
    ) -> Callable[[OnRunning[A]], OnRunning[A]]:
        """Register the decorated function as the handler of ``contract``'s command (see the
        module's docstring).

        Raises
        ------
        ValueError
            When the command has a handler already or is one of :data:`NOT_EXECUTED`.
        """
        name = contract.name

        def register(on_running: OnRunning[A]) -> OnRunning[A]:
            if name in self._handlers or name in NOT_EXECUTED:
                raise ValueError(f"command {name.value} has a handler already or is not executed")
            self._handlers[name] = Handler(name, on_running, when_idle, contract.result)
            return on_running

        return register

    def get(self, name: CommandName) -> Handler[Any] | None:
        return self._handlers.get(name)

    @property
    def names(self) -> frozenset[CommandName]:
        return frozenset(self._handlers)


REGISTRY = CommandRegistry()
"""The session host's handlers: the modules of this package register into it on import."""
handles = REGISTRY.handles


class CommandExecutor:
    """Runs each command with the handler ``registry`` holds for it (see the module's
    docstring); the dispatcher's one way into the handlers."""

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
