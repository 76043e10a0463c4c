"""One simulated session's link to the network: what its lifecycle and its operation families
share.

Every operation goes the same way: the session must be connected (``NOT_CONNECTED``, nothing
sent, no fault used up), its inputs are checked (``INVALID``), then a fault injected for it
may fail it (``POST /_simulator/faults {operation: ...}``: the port method's name, or for
groups the bus command that runs it), then the device's account acts on the network. The
connection is read again after the fault, as a ``timeout`` fault waits meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import NoReturn

from gateway.failures.kinds import ErrorKind

from ..port import NetworkError, RateLimit, SessionState
from .core import NetworkCore
from .model import AnswerFault, DialFault, rate_limit_of


class DeviceLink:
    """The device's connection as its session keeps it: ``state`` and ``conn`` (the network's
    connection id, while there is one) are the session's to change, on its loop."""

    def __init__(self, network: NetworkCore, device_id: str, state: SessionState) -> None:
        self.network = network
        self.device_id = device_id
        self.state = state
        self.conn: str | None = None

    def connection(self) -> str:
        """The connection of a connected session; ``NOT_CONNECTED`` otherwise."""
        if self.state is not SessionState.CONNECTED or self.conn is None:
            raise NetworkError(ErrorKind.NOT_CONNECTED, f"device {self.device_id} is {self.state.value}")
        return self.conn

    async def fault(self, operation: str) -> bool:
        """Apply a fault pending for this call: raise its error (nothing reaches the network),
        or, for a lost answer (only ever queued for sends), return True: the caller carries
        the operation out, then fails it with :meth:`ack_lost`. A rate refusal names its limit,
        and until when when the fault says (``retry_after_seconds``: from now)."""
        fault = self.network.take_fault(operation, self.device_id)
        if fault is None:
            return False
        kind = fault.kind
        limit = rate_limit_of(kind)
        if limit is not None:
            retry_at = None if fault.retry_after is None else self.network.clock() + fault.retry_after
            raise NetworkError.rate_limited(f"simulated {kind.value} fault on {operation}", limit, retry_at)
        assert not isinstance(kind, RateLimit)  # every rate fault was raised just above
        if kind is AnswerFault.LOST:
            return True
        if isinstance(kind, DialFault):  # only ever queued for connect (checked on injection)
            raise NetworkError(ErrorKind.NETWORK, f"simulated {kind} fault on {operation}")
        if kind is ErrorKind.TIMEOUT:
            await asyncio.sleep(self.network.timeout_fault_delay)
        raise NetworkError(kind, f"simulated {kind.value} fault on {operation}")

    async def ack_lost(self, operation: str) -> NoReturn:
        """The network has what ``operation`` sent, but its answer never comes: a timeout."""
        await asyncio.sleep(self.network.timeout_fault_delay)
        message = f"simulated ack_lost fault on {operation}: the network took it, no answer came"
        raise NetworkError(ErrorKind.TIMEOUT, message)
