"""The calls part of the network port: what a device does with a call it is offered.

The gateway cannot answer calls; it can decline them. Both adapters implement
:class:`CallOperations` (a session's ``calls``). The ``call.reject`` event of a rejection the
device made is the session host's to emit (with who decided it: the API or the device's
``reject_calls`` setting), not the adapter's.
"""

from __future__ import annotations

from typing import Protocol


class CallOperations(Protocol):
    """Declining the calls the device's account is offered."""

    async def reject_call(self, caller: str, call_id: str) -> None:
        """Decline the call ``call_id`` from ``caller`` (the ``from`` of its ``call.offer``):
        the caller sees it rejected.

        The simulated network refuses ``NOT_FOUND`` when no such call from ``caller`` rings
        for the account (never offered, ended, or already rejected). The real network takes
        any call id without a word: neonize cannot tell an unknown call.
        """
