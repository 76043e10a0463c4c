"""Contracts of the commands on a device's session: pairing, and the host's ping."""

from __future__ import annotations

from gateway.bus.contracts.base import CommandArgs, CommandResult, Text


class PairPhoneArgs(CommandArgs):
    phone: Text
    """The phone number to pair (the adapter checks it with ``gateway.jids``)."""


class QrCode(CommandResult):
    qr_code: Text
    expires_at: float
    """Epoch seconds."""


class PairCode(CommandResult):
    pair_code: Text


class Pong(CommandResult):
    host_id: str
