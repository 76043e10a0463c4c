"""The neonize adapter: failing handlers and sinks, the process-wide gate, client lifetime."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from fakes_neonize import (
    ACCOUNT,
    DEVICE_ID,
    FAST,
    FakeNetwork,
    Recorder,
    deliver,
    make_port,
    open_session,
    patched_client,
    run,
    seed_paired,
    wait_connect_started,
)
from neonize.events import ConnectedEv, KeepAliveRestoredEv, PairStatusEv

from session_host.network.neonize.clients import ClientRegistry
from session_host.network.neonize.locks import GoCallGate
from session_host.network.neonize.store import DeviceStore
from session_host.network.port import NetworkError, NetworkErrorKind, NetworkEvent


def test_a_failing_handler_is_logged_and_does_not_reach_the_library(tmp_path: Path, caplog: Any) -> None:
    # Given a pairing session whose credential store cannot be written
    fake = FakeNetwork()
    sink = Recorder()

    async def scenario() -> None:
        with patched_client(fake), patch.object(DeviceStore, "save_jid", side_effect=OSError("disk full")):
            session = open_session(make_port(), tmp_path, sink)
            await session.connect()
            client = await wait_connect_started(fake)
            # When the pair success arrives, neonize's dispatcher returns normally
            await deliver(
                client,
                PairStatusEv(ID=ACCOUNT, Platform="android", BusinessName="", Status=PairStatusEv.SUCCESS),
            )
            await session.close()

    with caplog.at_level(logging.ERROR, logger="session_host.network.neonize"):
        run(scenario())
    # Then the failure is logged with the device and the handler, and nothing was emitted for it
    failures = [r for r in caplog.records if "PairStatus handler failed" in r.getMessage()]
    assert len(failures) == 1
    assert DEVICE_ID in failures[0].getMessage()
    assert "disk full" in failures[0].exc_text
    assert sink.named("pair.success") == []


def test_a_failing_sink_is_logged_and_later_events_still_flow(tmp_path: Path, caplog: Any) -> None:
    # Given a sink that fails on device.connected
    fake = FakeNetwork()
    received: list[str] = []

    async def sink(event: NetworkEvent) -> None:
        if event.name == "device.connected":
            raise RuntimeError("queue unavailable")
        received.append(event.name)

    async def scenario() -> None:
        seed_paired(tmp_path)
        with patched_client(fake):
            session = make_port().open_session(DEVICE_ID, data_dir=tmp_path, sink=sink)
            await session.connect()
            client = await wait_connect_started(fake)
            # When events arrive
            await deliver(client, ConnectedEv(status=True))
            await deliver(client, KeepAliveRestoredEv())
            await session.close()

    with caplog.at_level(logging.ERROR, logger="session_host.network.neonize"):
        run(scenario())
    # Then the failure is logged and the next event is still delivered
    assert any("event sink failed for device.connected" in r.getMessage() for r in caplog.records)
    assert received == ["connection.keepalive_restored"]


def test_connect_start_and_stop_never_overlap_across_devices(tmp_path: Path) -> None:
    # Given two devices sharing the process-wide gate, recording who holds it
    gate = RecordingGate()
    fake = FakeNetwork()
    inside: list[bool] = []
    fake.on_connect = lambda _client: inside.append(gate.held_exclusive)
    timings = replace(FAST, start_hold=0.1)

    async def scenario() -> None:
        with patched_client(fake):
            port = make_port(timings, gate=gate)
            first = port.open_session("device-a", data_dir=tmp_path, sink=Recorder())
            second = port.open_session("device-b", data_dir=tmp_path, sink=Recorder())
            await first.connect()
            fake.clients[0].stop.side_effect = stop_recorder(gate, fake.clients[0].stop.side_effect, inside)
            # When the second device starts while the first one stops
            await asyncio.gather(second.connect(), first.close())
            fake.clients[1].stop.side_effect = stop_recorder(gate, fake.clients[1].stop.side_effect, inside)
            await second.close()
        # Then connect-start and stop always ran inside the exclusive gate, one at a time
        assert inside == [True, True, True, True]
        assert gate.max_exclusive == 1
        assert gate.sections == 4

    run(scenario())


def stop_recorder(gate: GoCallGate, original: Any, inside: list[bool]) -> Callable[[], None]:
    def stop() -> None:
        inside.append(gate.held_exclusive)
        original()

    return stop


class RecordingGate(GoCallGate):
    """The real gate, counting exclusive sections and how many ever overlapped."""

    def __init__(self) -> None:
        super().__init__()
        self._count_lock = threading.Lock()
        self.current = 0
        self.max_exclusive = 0
        self.sections = 0

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        with super().exclusive():
            with self._count_lock:
                self.current += 1
                self.sections += 1
                self.max_exclusive = max(self.max_exclusive, self.current)
            time.sleep(0.01)  # widen the window an overlap would need
            try:
                yield
            finally:
                with self._count_lock:
                    self.current -= 1


def test_clients_are_kept_alive_and_reused_per_account(tmp_path: Path) -> None:
    # Given a registry and a fake NewClient
    fake = FakeNetwork()
    registry = ClientRegistry()
    with patched_client(fake) as new_client:
        # When the same database asks twice, then a second device asks for the same account
        first = registry.client_for("a.sqlite3", ACCOUNT)
        again = registry.client_for("a.sqlite3", ACCOUNT)
        with pytest.raises(NetworkError) as raised:
            registry.client_for("b.sqlite3", ACCOUNT)
    # Then one client object serves the device (no finalizer can stop its Go session)
    assert first is again
    new_client.assert_called_once_with("a.sqlite3", jid=ACCOUNT)
    # And two devices of one account are refused, as neonize keys clients by account
    assert raised.value.kind is NetworkErrorKind.UNSUPPORTED


def test_open_session_returns_one_session_per_device(tmp_path: Path) -> None:
    # Given a port
    port = make_port()
    # When the same device is opened twice
    first = port.open_session(DEVICE_ID, data_dir=tmp_path, sink=Recorder())
    second = port.open_session(DEVICE_ID, data_dir=tmp_path, sink=Recorder())
    # Then it is the same session, and an unsafe device id is refused
    assert first is second
    assert port.name == "neonize"
    with pytest.raises(NetworkError) as raised:
        port.open_session("../escape", data_dir=tmp_path, sink=Recorder())
    assert raised.value.kind is NetworkErrorKind.INVALID
