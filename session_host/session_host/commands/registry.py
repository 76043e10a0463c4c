"""Which handler executes each device command.

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
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic

from gateway.bus import Command, CommandName, Reply
from gateway.bus.contracts import A, CommandResult, Contract
from session_host.commands.context import Host, Later, Outcome, needs_a_session
from session_host.device_tenure import OwnedDevice

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
