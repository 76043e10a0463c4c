"""Rejecting a call through the request's device.

The input is checked first (400), then the device's status on its record (503), and only then
is the session host asked (:mod:`session_host.commands.calls`); it declines the call on the
network and emits ``call.reject``. Its failures become codes in :mod:`gateway.failures.table`
(404 ``CALL_NOT_FOUND`` when the network knows no such call ringing).
"""

from __future__ import annotations

from typing import Any

from gateway.bus import contracts
from gateway.bus.contracts.calls import RejectCallArgs
from gateway.calls.schemas import RejectCallRequest
from gateway.devices import commands
from gateway.devices.access import require_session
from gateway.messages.receipts import participant_of, require_fields
from gateway.models import DeviceModel
from gateway.observability import logger


def reject_call(device: DeviceModel, call_id: str, request: RejectCallRequest) -> dict[str, Any]:
    """Decline the call ``call_id`` (checked by the route) from ``request.caller``; the
    caller sees it rejected."""
    require_fields(**{"from": (request.caller or "").strip()})
    caller = participant_of("from", request.caller)
    require_session(device)
    commands.execute(device, contracts.REJECT_CALL, RejectCallArgs(call_id=call_id, caller=caller))
    logger.info("call rejected", extra={"device_id": device.device_id, "call_id": call_id, "by": "api"})
    return {"call_id": call_id}
