"""Builders for the simulated adapter's unit tests: a network with test-sized timings,
sessions recording their events, and an event loop on a thread of its own (a host's)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from recording_sink import RecordingSink

from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError
from session_host.network.simulated import SimulatedNetwork, SimulatedPort, SimulatedSession

T = TypeVar("T")

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
    clock: Callable[[], float] = time.time,
) -> SimulatedNetwork:
    """A network with test-sized timings (and a clock of the test's, for its rate refusals)."""
    return SimulatedNetwork(
        qr_lifetimes=qr_lifetimes,
        reconnect_delay=reconnect_delay,
        timeout_fault_delay=timeout_fault_delay,
        clock=clock,
    )


def open_session(
    network: SimulatedNetwork, data_dir: Path, device_id: str = "dev-1", *, port: SimulatedPort | None = None
) -> tuple[SimulatedSession, RecordingSink]:
    """A session opened through ``port`` (a port of its own by default), recording its events."""
    recorder = RecordingSink()
    port = port or SimulatedPort(network)
    return port.open_session(device_id, data_dir=data_dir, sink=recorder), recorder


async def paired(
    network: SimulatedNetwork,
    data_dir: Path,
    device_id: str = "dev-1",
    phone: str = PHONE,
    *,
    port: SimulatedPort | None = None,
) -> tuple[SimulatedSession, RecordingSink]:
    """A session paired by a QR scan, connected, with its events so far recorded."""
    session, recorder = open_session(network, data_dir, device_id, port=port)
    await session.connect()
    await recorder.wait_for("qr.generated")
    network.scan(device_id, phone)
    await recorder.wait_for("device.connected")
    return session, recorder


async def network_timers_passed(network: SimulatedNetwork, data_dir: Path) -> None:
    """Wait (with a deadline) for proof that every timer the network armed before now has had
    its time: a twin device, started now on a port of its own, waits out a whole pairing window
    unscanned (every QR lifetime, then ``connection.pair_error``) and, paired, is dropped and
    reconnects by itself (``reconnect_delay``). A test that asserts something did *not* happen
    then knows it would have happened by now."""
    twin_dir = data_dir / "timers-twin"
    twin_dir.mkdir(parents=True, exist_ok=True)
    unscanned, unscanned_events = open_session(network, twin_dir, "timers-twin-qr")
    await unscanned.connect()
    dropped, dropped_events = await paired(network, twin_dir, "timers-twin", THIRD)
    network.drop("timers-twin")
    await dropped_events.wait_for("device.connected", 2, timeout=5.0)
    await unscanned_events.wait_for("connection.pair_error", timeout=5.0)
    await dropped.close()
    await unscanned.close()


async def refusal(call: Awaitable[object]) -> str:
    """The code of the network's refusal of ``call`` (it must be refused)."""
    with pytest.raises(NetworkError) as caught:
        await call
    assert caught.value.kind is ErrorKind.REFUSED, caught.value
    assert caught.value.code is not None
    return caught.value.code


class LoopThread:
    """An event loop on its own thread, like a session host's; for tests that call from outside."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 5.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        """Cancel what still runs on the loop (timers of sessions left open), then stop it."""
        self.run(_cancel_others())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self.loop.close()

    def __enter__(self) -> LoopThread:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


async def _cancel_others() -> None:
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
