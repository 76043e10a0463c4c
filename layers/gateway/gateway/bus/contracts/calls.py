"""Contracts of the commands on calls: rejecting one the device's account is offered."""

from __future__ import annotations

from gateway.bus.contracts.base import CommandArgs, CommandResult, Participant, Text


class RejectCallArgs(CommandArgs):
    """The call, by its id and its caller (``call.offer``'s ``call_id`` and ``from``)."""

    call_id: Text
    caller: Participant


class CallRejected(CommandResult):
    call_id: str
