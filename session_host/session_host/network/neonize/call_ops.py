"""What a neonize session does with the calls its account is offered (its ``calls``).

neonize 0.5.2's ``reject_call(call_from, call_id)`` wraps whatsmeow's ``RejectCall``: it
sends the reject on the connection and whatsmeow does not check the call id, so an unknown
or ended call is not refused (the caller's phone ignores it). ``call_from`` is the caller as
the offer named it: ``call.offer``'s ``from``, a phone JID or a LID.
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
        caller_jid = parse_jid(caller)
        if not call_id:
            raise NetworkError(ErrorKind.INVALID, "no call id")
        await self._link.call("reject call", lambda client: client.reject_call(caller_jid, call_id))
