"""What a simulated device session does with the calls its account is offered (its ``calls``).

As every operation (:mod:`.link`): connected first (``NOT_CONNECTED``, nothing sent), the
inputs checked (``INVALID``), then a fault injected for the port method (``POST
/_simulator/faults {operation: "reject_call"}``), then the account acts on the network: the
call stops ringing and the caller's phone shows it rejected (:meth:`~.world.World.reject_call`).
"""

from __future__ import annotations

from gateway.failures.kinds import ErrorKind

from ..contact_checks import check_person
from ..port import NetworkError
from .core import DeviceLink, NetworkCore


class SimulatedCalls:
    """A simulated session's ``calls``: declining the calls that ring for its account."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: NetworkCore = link.network

    async def reject_call(self, caller: str, call_id: str) -> None:
        self._link.connection()
        check_person(caller)
        if not call_id:
            raise NetworkError(ErrorKind.INVALID, "no call id")
        await self._link.fault("reject_call")
        with self._network.device(self._link.connection()) as turn:
            turn.world.reject_call(turn.account, caller, call_id)
            turn.changed()
