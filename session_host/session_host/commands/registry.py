"""Which handler executes each device command.

A command is one handler in the module of its area, registered with :func:`handles`::

    @handles(CommandName.MARK_READ)
    async def mark_read(host: Host, command: Command, owned: OwnedDevice) -> Reply: ...

The decorated function serves the command on a session this host runs. ``when_idle`` says
what happens when no session runs here; by default (:func:`.context.needs_a_session`) the
command goes to the host that runs the device and never starts a session, which is what
operations on the network (sends, groups, status) want. Every :class:`CommandName` has a
handler or is listed in :data:`NOT_EXECUTED` (a test checks it), so the executor never
needs to know one command from another.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from gateway.bus import Command, CommandName, Reply
from session_host.commands.context import Host, Later, Outcome, needs_a_session
from session_host.owned import OwnedDevice

OnRunning = Callable[[Host, Command, OwnedDevice], Awaitable[Reply | Later]]
"""Serve a command on the session this host runs for the device (the device's lock is held;
a :class:`~.context.Later` answers after it is let go)."""
OnIdle = Callable[[Host, Command], Awaitable[Outcome]]
"""Serve a command for a device no session on this host runs."""

NOT_EXECUTED: Mapping[CommandName, str] = MappingProxyType(
    {CommandName.PING: "answered by the dispatcher at once: it names no device and touches no network"}
)
"""Commands that never reach a handler, and why."""


@dataclass(frozen=True)
class Handler:
    name: CommandName
    on_running: OnRunning
    on_idle: OnIdle


class CommandRegistry:
    """Handlers by command name; one each."""

    def __init__(self) -> None:
        self._handlers: dict[CommandName, Handler] = {}

    def handles(
        self, name: CommandName, *, when_idle: OnIdle = needs_a_session
    ) -> Callable[[OnRunning], OnRunning]:
        """Register the decorated function as ``name``'s handler (see the module's docstring).

        Raises
        ------
        ValueError
            When ``name`` has a handler already or is one of :data:`NOT_EXECUTED`.
        """

        def register(on_running: OnRunning) -> OnRunning:
            if name in self._handlers or name in NOT_EXECUTED:
                raise ValueError(f"command {name.value} has a handler already or is not executed")
            self._handlers[name] = Handler(name, on_running, when_idle)
            return on_running

        return register

    def get(self, name: CommandName) -> Handler | None:
        return self._handlers.get(name)

    @property
    def names(self) -> frozenset[CommandName]:
        return frozenset(self._handlers)


REGISTRY = CommandRegistry()
"""The session host's handlers: the modules of this package register into it on import."""
handles = REGISTRY.handles
