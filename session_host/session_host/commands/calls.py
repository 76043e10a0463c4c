"""Commands on calls: reject one the device's account is offered (``call.reject`` follows,
:mod:`session_host.call_rejection`)."""

from __future__ import annotations

from typing import Any

from gateway.bus import Command, Reply, contracts
from gateway.bus.contracts.calls import CallRejected, RejectCallArgs
from session_host.call_rejection import reject
from session_host.commands.registry import Host, handles, ok, refuse_unless_connected
from session_host.device_tenure import OwnedDevice, session_snapshot
from session_host.network.call_payloads import RejectedBy


@handles(contracts.REJECT_CALL)
async def reject_call(host: Host, command: Command[RejectCallArgs], owned: OwnedDevice) -> Reply[Any]:
    """Decline the call; the caller sees it rejected."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    call_id = command.args.call_id
    await reject(owned, host.own.publish, command.args.caller, call_id, by=RejectedBy.API)
    return ok(command, session_snapshot(owned.session), CallRejected(call_id=call_id))
