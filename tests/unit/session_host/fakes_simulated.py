"""Builders for the simulated adapter's unit tests: a network with test-sized timings, sessions."""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path

import pytest

from session_host.network.port import NetworkError, NetworkErrorKind
from session_host.network.simulated import SimulatedNetwork, SimulatedPort, SimulatedSession
from session_host.network.simulated.testing import EventRecorder

PHONE = "15550001111"
JID = f"{PHONE}@s.whatsapp.net"
CONTACT = "15550002222"
CONTACT_JID = f"{CONTACT}@s.whatsapp.net"
THIRD = "15550003333"
THIRD_JID = f"{THIRD}@s.whatsapp.net"


def fast_network(
    *,
    qr_lifetimes: tuple[float, ...] = (0.3, 0.1, 0.1),
    reconnect_delay: float = 0.05,
    timeout_fault_delay: float = 0.05,
) -> SimulatedNetwork:
    """A network with test-sized timings."""
    return SimulatedNetwork(
        qr_lifetimes=qr_lifetimes, reconnect_delay=reconnect_delay, timeout_fault_delay=timeout_fault_delay
    )


def open_session(
    network: SimulatedNetwork, data_dir: Path, device_id: str = "dev-1", *, port: SimulatedPort | None = None
) -> tuple[SimulatedSession, EventRecorder]:
    """A session opened through ``port`` (a port of its own by default), recording its events."""
    recorder = EventRecorder()
    port = port or SimulatedPort(network)
    return port.open_session(device_id, data_dir=data_dir, sink=recorder), recorder


async def paired(
    network: SimulatedNetwork,
    data_dir: Path,
    device_id: str = "dev-1",
    phone: str = PHONE,
    *,
    port: SimulatedPort | None = None,
) -> tuple[SimulatedSession, EventRecorder]:
    """A session paired by a QR scan, connected, with its events so far recorded."""
    session, recorder = open_session(network, data_dir, device_id, port=port)
    await session.connect()
    await recorder.wait_for("qr.generated")
    network.scan(device_id, phone)
    await recorder.wait_for("device.connected")
    return session, recorder


async def refusal(call: Awaitable[object]) -> str:
    """The code of the network's refusal of ``call`` (it must be refused)."""
    with pytest.raises(NetworkError) as caught:
        await call
    assert caught.value.kind is NetworkErrorKind.REFUSED, caught.value
    assert caught.value.code is not None
    return caught.value.code
