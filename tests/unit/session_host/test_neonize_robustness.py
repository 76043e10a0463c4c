"""The neonize adapter: failing handlers and sinks, the process-wide gate, client lifetime."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
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
    connected,
    deliver,
    eventually,
    execute,
    make_port,
    open_session,
    patched_client,
    run,
    seed_paired,
    show_qr,
    wait_connect_started,
)
from neonize.events import ConnectedEv, DisconnectedEv, KeepAliveRestoredEv, PairStatusEv
from neonize.exc import NeonizeError
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message
from recording_sink import RecordingSink
from waiting import PROMPTLY

from gateway.failures.kinds import ErrorKind
from session_host.network.neonize.clients import ClientRegistry
from session_host.network.neonize.locks import GoCallGate, Ticket
from session_host.network.neonize.store import DeviceStore
from session_host.network.port import NetworkError, NetworkEvent, SessionState

PEER = "5511999998888@s.whatsapp.net"


def test_a_failing_handler_is_logged_and_does_not_reach_the_library(tmp_path: Path, caplog: Any) -> None:
    # Given a pairing session whose credential store cannot be written
    fake = FakeNetwork()
    sink = RecordingSink()

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

    def on_connect(client: Any) -> None:
        inside.append(gate.held_exclusive)
        client.stop.side_effect = stop_recorder(gate, client.stop.side_effect, inside)

    fake.on_connect = on_connect
    timings = replace(FAST, start_hold=0.1)

    async def scenario() -> None:
        with patched_client(fake):
            port = make_port(timings, gate=gate)
            first = port.open_session("device-a", data_dir=tmp_path, sink=RecordingSink())
            second = port.open_session("device-b", data_dir=tmp_path, sink=RecordingSink())
            await first.connect()
            await eventually(lambda: len(fake.clients) == 1 and fake.clients[0].connect_started.is_set())
            await show_qr(fake.clients[0], "2@first")  # the network answered: the dial is over
            # When the second device starts while the first one stops
            await asyncio.gather(second.connect(), first.close())
            await eventually(lambda: len(inside) == 3)
            await show_qr(fake.clients[1], "2@second")
            await second.close()
            await eventually(lambda: len(inside) == 4)
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

    def acquire_exclusive(self, lease: float | None, *, overdue_warning: bool = False) -> Ticket:
        ticket = super().acquire_exclusive(lease, overdue_warning=overdue_warning)
        with self._count_lock:
            self.current += 1
            self.sections += 1
            self.max_exclusive = max(self.max_exclusive, self.current)
        return ticket

    def _end_writer_phase(self) -> None:
        with self._count_lock:
            self.current -= 1
        super()._end_writer_phase()


def hanging_dial(dial_over: threading.Event) -> Callable[[Any], None]:
    """connect() as neonize's over a silent network: blocked until the dial ends, then it raises."""

    def dial(_client: Any) -> None:
        dial_over.wait(10)
        raise NeonizeError("failed to dial whatsapp web websocket: context deadline exceeded")

    return dial


def test_close_returns_at_once_while_the_dial_hangs_and_other_devices_go_on(tmp_path: Path) -> None:
    # Given a device whose dial hangs
    fake = FakeNetwork()
    dial_over = threading.Event()
    fake.on_connect = hanging_dial(dial_over)

    async def scenario() -> None:
        with patched_client(fake):
            port = make_port()
            stuck = port.open_session("device-stuck", data_dir=tmp_path, sink=RecordingSink())
            other = port.open_session("device-other", data_dir=tmp_path, sink=RecordingSink())
            await stuck.connect()
            client = await wait_connect_started(fake)
            # When the host closes it
            started = time.monotonic()
            await stuck.close()
            # Then close() returned at once, and nothing calls into the library while it dials
            # (a twin the network answered, closed after it, is stopped at once on a thread of
            # its own: a stop of the hanging run would have been made by then too)
            assert time.monotonic() - started < PROMPTLY
            fake.on_connect = None
            twin = port.open_session("device-twin", data_dir=tmp_path, sink=RecordingSink())
            await twin.connect()
            twin_client = await wait_connect_started(fake)
            await show_qr(twin_client, "2@twin")
            await twin.close()
            await eventually(lambda: twin_client.stop.called)
            client.disconnect.assert_not_called()
            client.stop.assert_not_called()
            # And another device's call goes through the gate at once
            started = time.monotonic()
            with pytest.raises(NetworkError) as raised:
                await other.sending.send_text(PEER, "hi")
            assert raised.value.kind is ErrorKind.NOT_CONNECTED
            assert time.monotonic() - started < PROMPTLY
            # And once the dial is over, the run is stopped (the Go side forgets it), quietly
            dial_over.set()
            await eventually(lambda: client.stop.called)
            client.disconnect.assert_not_called()
            assert stuck.state is SessionState.NOT_READY
            # And the device may start again
            await stuck.connect()
            await eventually(lambda: client.connect.call_count == 2)
            await stuck.close()

    run(scenario())


def test_a_new_attempt_of_a_device_waits_for_its_previous_run_only(tmp_path: Path) -> None:
    # Given a device whose first dial hangs and is closed
    fake = FakeNetwork()
    dial_over = threading.Event()
    fake.on_connect = hanging_dial(dial_over)
    sink = RecordingSink()

    async def scenario() -> None:
        with patched_client(fake):
            port = make_port()
            session = port.open_session("device-a", data_dir=tmp_path, sink=sink)
            await session.connect()
            client = await wait_connect_started(fake)
            await session.close()
            # When it connects again while the first run still dials
            fake.on_connect = None
            started = time.monotonic()
            await session.connect()
            # Then connect() returned at once, and the new run starts only after the old one
            # stopped (another device connecting after it dials at once: the new run of this
            # one would have dialed by then too)
            assert time.monotonic() - started < PROMPTLY
            other = port.open_session("device-b", data_dir=tmp_path, sink=RecordingSink())
            await other.connect()
            await eventually(lambda: len(fake.clients) == 2 and fake.client.connect_started.is_set())
            assert client.connect.call_count == 1
            dial_over.set()
            await eventually(lambda: client.connect.call_count == 2)
            assert client.stop.call_count == 1
            assert sink.events == []  # the closed run ended quietly
            await session.close()
            await other.close()

    run(scenario())


def test_a_library_call_past_its_deadline_answers_timeout(tmp_path: Path) -> None:
    # Given a connected device whose send never answers
    fake = FakeNetwork()
    release = threading.Event()

    async def scenario() -> None:
        with patched_client(fake):
            seed_paired(tmp_path)
            session = make_port(replace(FAST, call_deadline=0.1)).open_session(
                DEVICE_ID, data_dir=tmp_path, sink=RecordingSink()
            )
            await session.connect()
            client = await wait_connect_started(fake)
            await deliver(client, ConnectedEv(status=True))
            client.send_message.side_effect = lambda *_args: release.wait(30)
            # When the device sends
            started = time.monotonic()
            with pytest.raises(NetworkError) as raised:
                await session.sending.send_text("5511999998888@s.whatsapp.net", "hi")
            # Then the caller gets TIMEOUT after the deadline, and the call finishes by itself
            assert raised.value.kind is ErrorKind.TIMEOUT
            assert time.monotonic() - started < PROMPTLY
            release.set()
            await session.close()

    run(scenario())


def test_each_library_call_of_an_operation_takes_its_own_ticket_and_checks_again(tmp_path: Path) -> None:
    # Given a connected device, and a gate counting the shared tickets taken
    fake = FakeNetwork()
    gate = CountingGate()

    async def scenario() -> None:
        with patched_client(fake):
            session, _ = await connected(tmp_path, fake, gate=gate)
            client = fake.client
            client.build_revoke.return_value = Message()
            # When it revokes a message (two library calls: build the revoke, send it)
            before = gate.shared_tickets
            await session.messages.revoke_message(PEER, "3EB0AA11")
            # Then each call went through the gate on a ticket of its own
            assert gate.shared_tickets - before == 2
            client.send_message.assert_called_once()
            # When the connection drops between the two calls of the next revoke
            client.build_revoke.side_effect = lambda *_args, **_kwargs: (
                execute(client, DisconnectedEv(status=True)),
                Message(),
            )[1]
            with pytest.raises(NetworkError) as raised:
                await session.messages.revoke_message(PEER, "3EB0AA12")
            # Then the second call is refused before it reaches the library
            assert raised.value.kind is ErrorKind.NOT_CONNECTED
            client.send_message.assert_called_once()
            await session.close()

    run(scenario())


class CountingGate(GoCallGate):
    """The real gate, counting the shared tickets it gave."""

    def __init__(self) -> None:
        super().__init__()
        self.shared_tickets = 0

    def acquire_shared(self) -> Ticket:
        self.shared_tickets += 1
        return super().acquire_shared()


def test_the_gate_lets_a_reader_in_after_one_writer_however_many_queue() -> None:
    # Given a writer holding the gate and nine more writers queued behind it
    gate = GoCallGate()
    order: list[str] = []
    first = gate.acquire_exclusive(None)

    def writer(name: str) -> None:
        with gate.exclusive(None):
            order.append(name)
            time.sleep(0.02)

    writers = [threading.Thread(target=writer, args=(f"w{i}",)) for i in range(9)]
    for thread in writers:
        thread.start()
    deadline = time.monotonic() + 2
    while len(gate._writers) < 9 and time.monotonic() < deadline:  # all queued
        time.sleep(0.001)
    # When a reader arrives, then the first writer releases
    reader = threading.Thread(target=lambda: (gate.acquire_shared().release(), order.append("reader")))
    reader.start()
    time.sleep(0.02)
    order.append("w-first")
    first.release()
    reader.join(2)
    for thread in writers:
        thread.join(2)
    # Then the reader went right after the writer that held the gate, before the queue
    assert order[:2] == ["w-first", "reader"]
    assert sorted(order[2:]) == sorted(f"w{i}" for i in range(9))


def test_the_gate_counts_every_ticket_for_its_lease_only() -> None:
    # Given a reader that never releases (a call stuck on the network) and a gate with short leases
    gate = GoCallGate(read_lease=0.05)
    gate.acquire_shared()
    # When a writer comes
    started = time.monotonic()
    with gate.exclusive(0.05):
        waited = time.monotonic() - started
        # Then it waited only for the reader's lease
        assert 0.03 < waited < PROMPTLY
        assert gate.held_exclusive
    # And an exclusive ticket never released stops counting after its lease too
    gate.acquire_exclusive(0.05)
    started = time.monotonic()
    gate.acquire_shared().release()
    assert time.monotonic() - started < PROMPTLY
    assert not gate.held_exclusive


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
    assert raised.value.kind is ErrorKind.UNSUPPORTED


def test_open_session_returns_one_session_per_device(tmp_path: Path) -> None:
    # Given a port
    port = make_port()
    # When the same device is opened twice
    first = port.open_session(DEVICE_ID, data_dir=tmp_path, sink=RecordingSink())
    second = port.open_session(DEVICE_ID, data_dir=tmp_path, sink=RecordingSink())
    # Then it is the same session, and an unsafe device id is refused
    assert first is second
    assert port.name == "neonize"
    with pytest.raises(NetworkError) as raised:
        port.open_session("../escape", data_dir=tmp_path, sink=RecordingSink())
    assert raised.value.kind is ErrorKind.INVALID
