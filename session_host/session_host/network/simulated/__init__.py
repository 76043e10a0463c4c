"""The simulated messaging network: an in-process model of the network behind the port.

It is the default for local runs and the backbone of the tests. :class:`SimulatedNetwork`
is the world (accounts, linked devices, traffic, faults: its core in :mod:`.core`, the state
and rules in :mod:`.world` and :mod:`.groups`) and the phones of the other side;
:class:`SimulatedPort` the port adapter opening :class:`SimulatedSession` objects, each its
lifecycle plus one object per operation family (``session_sending``, ``session_messages``,
``session_groups``, ``session_status``) on one :class:`~.link.DeviceLink`;
:func:`control_router` (in :mod:`.control`, which needs the gateway's web layer) the API that
plays the other side, and :data:`PRODUCED_EVENTS` the catalog events it can emit.
"""

from .adapter import SimulatedPort
from .catalog import PRODUCED_EVENTS
from .network import REAL_QR_LIFETIMES, SimulatedNetwork
from .session import SimulatedSession

__all__ = ["PRODUCED_EVENTS", "REAL_QR_LIFETIMES", "SimulatedNetwork", "SimulatedPort", "SimulatedSession"]
