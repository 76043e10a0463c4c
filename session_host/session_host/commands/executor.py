"""Executing device commands: find the command's handler and give it the device, running
here or not.

The caller holds the device's lock, so commands of one device run one after the other.
Commands on a running session are answered from memory (``qr``, a ``connect`` that is a
no-op) or with only the network call they need. A device another live host runs is not
touched: the command is forwarded to that host's queue.
"""

from __future__ import annotations

from gateway.bus import Command, Reply
from gateway.failures.kinds import ErrorKind
from session_host.commands.context import Host, Later, Outcome, failed
from session_host.commands.registry import REGISTRY, CommandRegistry
from session_host.network.port import NetworkError
from session_host.owned import session_snapshot
from session_host.ownership import Ownership


class CommandExecutor:
    def __init__(self, ownership: Ownership, registry: CommandRegistry = REGISTRY) -> None:
        self._host = Host(ownership)
        self._registry = registry

    async def execute(self, command: Command) -> Outcome:
        """Run ``command`` (the caller holds the device's lock).

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
        try:
            if owned is not None:
                return await handler.on_running(self._host, command, owned)
            return await handler.on_idle(self._host, command)
        except NetworkError as error:
            return self._network_failure(command, error)

    async def finish(self, command: Command, later: Later) -> Reply:
        """The reply of a handler that answered :class:`Later` (the caller has let the
        device's lock go); a network failure is the answer, as in :meth:`execute`."""
        try:
            return await later.reply
        except NetworkError as error:
            return self._network_failure(command, error)

    def _network_failure(self, command: Command, error: NetworkError) -> Reply:
        owned = self._host.own.devices.get(command.device_id)
        snapshot = session_snapshot(owned.session) if owned else None
        return failed(command, error.kind, str(error), snapshot, code=error.code)
