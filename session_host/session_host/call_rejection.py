"""Rejecting calls, and the ``call.reject`` event that follows every rejection the device makes.

Two ways: a client asks (POST /calls/{call_id}/reject, :mod:`session_host.commands.calls`),
or the device's ``reject_calls`` setting is on when a ``call.offer`` arrives
(:class:`AutoRejection`): the host reads the setting from the device record at each offer, so
a change applies to the next call, rejects the call at once and, when ``reject_calls_message``
is set, sends the caller that text straight from the session. That text does not go through
the outbox: it answers a call the caller just made, so pacing must not hold it back, and it
is not a send a client made (no gateway id, no ``message.sent``); ``call.reject`` carries its
network id (``reply_message_id``).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from gateway.observability import logger
from gateway.webhooks.catalog import EventName
from session_host import records
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.device_tenure import OwnedDevice
from session_host.network.call_payloads import RejectedBy, call_reject
from session_host.network.port import NetworkError, NetworkEvent

Publish = Callable[[OwnedDevice, NetworkEvent], Awaitable[None]]


async def reject(
    owned: OwnedDevice,
    publish: Publish,
    caller: str,
    call_id: str,
    *,
    by: RejectedBy,
    reply: str | None = None,
) -> None:
    """Decline the call on the network, send ``reply`` to the caller if given, then publish
    ``call.reject``. A failed rejection raises (nothing is published); a failed reply is
    logged and the event says none was sent."""
    session = owned.session
    await session.calls.reject_call(caller, call_id)
    reply_id = None
    if reply:
        try:
            reply_id = (await session.sending.send_text(caller, reply)).message_id
        except NetworkError as error:
            logger.warning(
                "reply to a rejected caller not sent",
                extra={"device_id": owned.device_id, "call_id": call_id, "kind": error.kind},
            )
    event = call_reject(
        call_id=call_id,
        device_jid=session.jid,
        caller=caller,
        at=time.time(),
        by=by,
        reply_message_id=reply_id,
    )
    await publish(owned, event)


class AutoRejection:
    """Rejects each call offered to a device whose ``reject_calls`` is on (see the module
    docstring); runs beside the sink, so the offer is published first and no event waits."""

    def __init__(
        self, *, aws: AwsCalls, publish: Publish, spawn: Callable[[Coroutine[Any, Any, None]], None]
    ) -> None:
        self._aws = aws
        self._publish = publish
        self._spawn = spawn

    def observe(self, owned: OwnedDevice, event: NetworkEvent) -> None:
        """Called by the sink after each event of the device was published."""
        if event.name == EventName.CALL_OFFER:
            self._spawn(self._answer(owned, event))

    async def _answer(self, owned: OwnedDevice, offer: NetworkEvent) -> None:
        call_id, caller = str(offer.data.get("call_id") or ""), offer.data.get("from")
        if not call_id or not isinstance(caller, str):
            return
        try:
            settings = await self._aws(records.settings, owned.tenant_id, owned.device_id)
        except AWS_ERRORS as error:
            logger.warning(
                "call settings not read; the call is left ringing",
                extra={"device_id": owned.device_id, "call_id": call_id, "error": str(error)},
            )
            return
        if settings is None or not settings.reject_calls or not owned.active:
            return
        try:
            await reject(
                owned, self._publish, caller, call_id, by=RejectedBy.AUTO, reply=settings.reject_calls_message
            )
        except NetworkError as error:
            logger.warning(
                "call not rejected",
                extra={"device_id": owned.device_id, "call_id": call_id, "error": str(error)},
            )
            return
        logger.info("call rejected", extra={"device_id": owned.device_id, "call_id": call_id, "by": "auto"})
