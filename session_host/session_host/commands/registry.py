"""Which handler executes each device command, and executing it with that handler.

A command is one handler in the module of its area, registered with :func:`handles` for the
command's contract (:mod:`gateway.bus.contracts`)::

    @handles(contracts.MARK_READ)
    async def mark_read(host: Host, command: Command[MarkReadArgs], owned: OwnedDevice): ...

``command.args`` is the contract's arguments model, parsed before the handler runs
(``gateway.bus.messages.read_command``); the reply's result is the contract's result model
(the executor checks it). The decorated function serves the command on a session this host
runs. ``when_idle`` says what happens when no session runs here; by default
(:func:`needs_a_session`) the command goes to the host that runs the device and
never starts a session, which is what operations on the network (sends, groups, status) want.
Every :class:`CommandName` has a handler or is listed in :data:`NOT_EXECUTED` (a test checks
it), so the executor never needs to know one command from another.

:class:`CommandExecutor` gives a command's handler the device, running here or not. The
caller holds the device's lock, so commands of one device run one after the other. Commands
on a running session are answered from memory (``qr``, a ``connect`` that is a no-op) or
with only the network call they need. A device another live host runs is not touched: the
command is forwarded to that host's queue.

A command that is one operation on a connected session is written as that operation,
``async def op(session, args) -> Result``, registered with :func:`on_session`.

What every handler shares is here too: replies (:func:`ok`, :func:`failed`), forwarding, and
the steps of taking, ending or refusing a device (:class:`Host`), written once so a handler
holds only what its command does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic

from gateway.bus import Command, CommandName, DeviceSnapshot, Reply
from gateway.bus.contracts import A, CommandResult, Contract, Done
from gateway.failures.kinds import ErrorKind
from gateway.observability import logger
from session_host import records
from session_host.config import READY_WAIT_SECONDS
from session_host.device_tenure import OwnedDevice, session_snapshot
from session_host.network.port import DeviceSession, NetworkError, SessionState
from session_host.ownership import Ownership, RecordOnEnd

NOT_LOGGED_IN = "the device is not logged in"
HOST_FULL = (
    "this session host runs as many devices as it may (MAX_SESSIONS); retry: another host may have room"
)


@dataclass(frozen=True)
class Forward:
    """The command belongs to the host whose queue this is."""

    queue_url: str


@dataclass(frozen=True)
class Later:
    """A reply that is awaited after the device's lock is let go: for a handler that waits
    for something slow (a send's dispatch) without holding up the device's other commands."""

    reply: Awaitable[Reply[Any]]
    replied: Callable[[], None] | None = None
    """Called once the reply has left (or could not): work that may wait for it goes then."""


Outcome = Reply[Any] | Forward | Later | None
"""A reply to send, a host to forward to, a reply to await without the device's lock, or
None: dropped unexecuted (deadline passed)."""

Taken = Callable[["Host", Command[Any], OwnedDevice, bool], Awaitable[Reply[Any]]]
"""What a command does with a device it has just taken; the flag says whether the device's
record was claimed (it exists)."""


def ok(
    command: Command[Any], device: DeviceSnapshot | None, result: CommandResult | None = None
) -> Reply[Any]:
    """A success; ``result`` is the command's contract's (None: :class:`Done`, for a command
    that answers only the device's state)."""
    return Reply.success(command, Done() if result is None else result, device)


def failed(
    command: Command[Any],
    kind: ErrorKind,
    message: str,
    device: DeviceSnapshot | None = None,
    *,
    code: str | None = None,
) -> Reply[Any]:
    return Reply.failure(command, kind, message, device, code=code)


class Host:
    """The session host as command handlers see it: its tenures (:attr:`own`) and the steps
    several commands take."""

    def __init__(self, ownership: Ownership) -> None:
        self.own = ownership

    async def to_holder(self, command: Command[Any]) -> Forward | None:
        """Where to forward a command for a device another live host runs, if one does."""
        holder = await self.own.holder(command.device_id)
        if holder is not None and holder.owner_queue_url:
            return Forward(holder.owner_queue_url)
        return None

    async def held_elsewhere(self, command: Command[Any]) -> Forward | Reply[Any]:
        """The device's lease is another host's: forward there, or fail if it cannot be reached."""
        if forward := await self.to_holder(command):
            return forward
        return failed(command, ErrorKind.HOST_ERROR, "the device is held by a host that cannot be reached")

    async def take(
        self,
        command: Command[Any],
        how: records.Claim,
        then: Taken,
        *,
        missing_ok: bool = False,
        stays: bool = False,
    ) -> Outcome:
        """Take a device no host runs (lease, session, claim on its record), then run ``then``.

        A device whose record cannot be claimed does not exist: NOT_FOUND, unless
        ``missing_ok``. A take whose session ``stays`` (connect, reconnect) is refused by a full
        host (HOST_FULL: another host may have room). If ``then`` fails, the tenure it was given
        never outlives it.
        """
        own = self.own
        if stays and own.full:
            return failed(command, ErrorKind.HOST_FULL, HOST_FULL)
        lease = await own.acquire(command.tenant_id, command.device_id)
        if lease is None:
            return await self.held_elsewhere(command)
        owned = own.open(command.tenant_id, command.device_id, lease)
        try:
            claimed = await own.claim(owned, how)
            if not claimed and not missing_ok:
                await own.retire(owned, RecordOnEnd.NOTHING)
                return failed(command, ErrorKind.NOT_FOUND, "the device does not exist")
            return await then(self, command, owned, claimed)
        except Exception:
            if owned.active:
                await own.retire(owned, RecordOnEnd.RELEASE_ONLY)
            raise

    async def end(
        self, command: Command[Any], owned: OwnedDevice, action: Callable[[], Awaitable[None]]
    ) -> Reply[Any]:
        """End the session with ``action`` and let the device go; a network failure leaves
        the session running as it was."""
        owned.ending = True
        try:
            await action()
        except NetworkError:
            owned.ending = False
            raise
        return ok(command, await self.own.retire(owned, RecordOnEnd.STOP_WANTING))


async def needs_a_session(host: Host, command: Command[Any]) -> Outcome:
    """The default for a device no session on this host runs: commands that only a running
    session serves go to the host that runs it, and never start one."""
    if forward := await host.to_holder(command):
        return forward
    return failed(command, ErrorKind.NOT_RUNNING, "no session runs this device; connect it first")


async def refuse_if_paired(command: Command[Any], owned: OwnedDevice) -> Reply[Any] | None:
    """Pairing commands wait (briefly) for a session that is just starting to show its first
    QR code or to resume; a paired device is refused."""
    session = owned.session
    await owned.wait_until(
        lambda: session.jid is not None or session.current_qr is not None, READY_WAIT_SECONDS
    )
    if session.jid is not None:
        return failed(command, ErrorKind.ALREADY_LOGGED_IN, "the device is already paired")
    return None


def refuse_unless_connected(command: Command[Any], owned: OwnedDevice) -> Reply[Any] | None:
    """Operations on the network (receipts, sends) need a connected session."""
    session = owned.session
    if session.state is SessionState.CONNECTED:
        return None
    message = f"the device is not connected (status {session.state.value})"
    return failed(command, ErrorKind.NOT_CONNECTED, message, session_snapshot(session))


OnRunning = Callable[[Host, Command[A], OwnedDevice], Awaitable[Reply[Any] | Later]]
"""Serve a command on the session this host runs for the device (the device's lock is held;
a :class:`Later` answers after it is let go)."""
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

SessionOperation = Callable[[DeviceSession, A], Awaitable[CommandResult]]
"""What a command does on a connected session with its arguments: the contract's result."""


def served(
    operation: SessionOperation[A], *, before: Callable[[DeviceSession, A], Awaitable[object]] | None = None
) -> OnRunning[A]:
    """The handler of a command that is one operation on the network: refused unless the
    session is connected, then ``before`` (a check that refuses by raising, as the groups'
    admin rule), then ``operation``, answered with the session's state."""

    async def handler(_host: Host, command: Command[A], owned: OwnedDevice) -> Reply[Any]:
        if refused := refuse_unless_connected(command, owned):
            return refused
        session = owned.session
        if before is not None:
            await before(session, command.args)
        result = await operation(session, command.args)
        return ok(command, session_snapshot(session), result)

    handler.__doc__ = operation.__doc__
    return handler


def on_session(
    contract: Contract[A, Any], *, before: Callable[[DeviceSession, A], Awaitable[object]] | None = None
) -> Callable[[SessionOperation[A]], SessionOperation[A]]:
    """Register the decorated operation as the handler of ``contract``'s command (see
    :func:`served`)."""

    def register(operation: SessionOperation[A]) -> SessionOperation[A]:
        handles(contract)(served(operation, before=before))
        return operation

    return register


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
