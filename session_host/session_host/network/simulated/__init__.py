"""The simulated messaging network: an in-process model of the network behind the port.

It is the default for local runs and the backbone of the tests. :class:`SimulatedNetwork`
is the world (accounts, linked devices, traffic, faults), :class:`SimulatedPort` the port
adapter opening :class:`SimulatedSession` objects, and :func:`control_router` (in
:mod:`.control`, which needs the gateway's web layer) the API that plays the other side.
"""

from .adapter import SimulatedPort
from .network import REAL_QR_LIFETIMES, SimulatedNetwork
from .session import SimulatedSession

__all__ = ["REAL_QR_LIFETIMES", "SimulatedNetwork", "SimulatedPort", "SimulatedSession"]
