"""The ``simulated`` adapter of the network port."""

from __future__ import annotations

from pathlib import Path

from ..port import EventSink
from .network import SimulatedNetwork
from .session import SimulatedSession


class SimulatedPort:
    """Opens sessions on a :class:`SimulatedNetwork`.

    Several ports (several session hosts) may share one network in one process; each
    session runs on the loop that calls its ``connect()``.
    """

    name = "simulated"

    def __init__(self, network: SimulatedNetwork) -> None:
        self.network = network

    def open_session(self, device_id: str, *, data_dir: Path, sink: EventSink) -> SimulatedSession:
        return SimulatedSession(self.network, device_id, data_dir=data_dir, sink=sink)
