"""What a neonize session does with the calls its account is offered (its ``calls``).

neonize 0.5.2's ``reject_call(call_from, call_id)`` wraps whatsmeow's ``RejectCall``: it
sends the reject on the connection and whatsmeow does not check the call id, so an unknown
or ended call is not refused (the caller's phone ignores it). ``call_from`` must be the caller
exactly as the offer named it, often a LID where ``call.offer`` shows the phone JID: the
session remembers each offer's caller (:meth:`~.link.DeviceLink.call_offered`) and uses it for
that call id; a call it did not see offered goes to the caller the request names.
"""

from __future__ import annotations

from gateway.failures.kinds import ErrorKind

from ..port import NetworkError
from .jids import parse_jid
from .link import DeviceLink


class NeonizeCalls:
    """A neonize session's ``calls``: every library call through its link's gated call."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link

    async def reject_call(self, caller: str, call_id: str) -> None:
        given = parse_jid(caller)
        if not call_id:
            raise NetworkError(ErrorKind.INVALID, "no call id")
        caller_jid = self._link.offered_caller(call_id) or given
        await self._link.call("reject call", lambda client: client.reject_call(caller_jid, call_id))
