"""The command bus: API functions send device commands to the session host and wait for replies.

Routing: a command goes to the command queue of the session host that runs the device (its
URL is on the device record, written by that host when it took the lease), or to the shared
command queue when no host runs the device; any host takes it from there. Replies come back
on a reply queue of the sending process, matched by the command id. Every command carries a
deadline; a host never executes a command whose deadline has passed.

What a command takes and answers is its contract (:mod:`gateway.bus.contracts`): typed
arguments and result, checked once where they arrive, in a versioned wire form
(:mod:`gateway.bus.messages`).
"""

from gateway.bus import contracts
from gateway.bus.client import BusTimeout, CommandBus, CommandFailed, Target, get_bus
from gateway.bus.contracts import CommandName
from gateway.bus.messages import Command, DeviceSnapshot, Reply

__all__ = [
    "BusTimeout",
    "Command",
    "CommandBus",
    "CommandFailed",
    "CommandName",
    "DeviceSnapshot",
    "Reply",
    "Target",
    "contracts",
    "get_bus",
]
