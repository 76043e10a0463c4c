"""The ``simulated`` adapter of the network port."""

from __future__ import annotations

import weakref
from pathlib import Path

from ..port import EventSink
from .network import SimulatedNetwork
from .persistence import delete_credentials
from .session import SimulatedSession


class SimulatedPort:
    """Opens sessions on a :class:`SimulatedNetwork`.

    Several ports (several session hosts) may share one network in one process; each
    session runs on the loop that calls its ``connect()``. :meth:`crash` plays the death of
    the host process that owns this port.
    """

    name = "simulated"

    def __init__(self, network: SimulatedNetwork) -> None:
        self.network = network
        self._sessions: weakref.WeakSet[SimulatedSession] = weakref.WeakSet()

    def open_session(self, device_id: str, *, data_dir: Path, sink: EventSink) -> SimulatedSession:
        session = SimulatedSession(self.network, device_id, data_dir=data_dir, sink=sink)
        self._sessions.add(session)
        return session

    def discard(self, device_id: str, *, data_dir: Path) -> None:
        """Delete the device's stored credentials (only a paired device has any)."""
        delete_credentials(Path(data_dir), device_id)

    def crash(self) -> None:
        """Every session opened here dies at once, as if the host process was killed.

        The network sees their connections vanish (no ``device.disconnected``, no logout);
        credentials stay on disk, so another port sharing the network and the ``data_dir``
        resumes the devices (see :meth:`SimulatedSession.crash`).
        """
        for session in list(self._sessions):
            session.crash()
