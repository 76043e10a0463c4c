"""Unit tests of the neonize adapter's session lifecycle and operations (no network).

Clients are ``create_autospec(NewClient, instance=True)``, patched where the adapter
constructs them, so every call the adapter makes is checked against neonize's real
signatures. Their ``event`` attribute is neonize's real ``Event`` dispatcher, and events are
delivered as neonize delivers them: serialized protobuf bytes decoded by ``Event.execute``
on a thread that is not the event loop. The fake ``connect()`` blocks until ``stop()``, as
the real one does.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import inspect
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest.mock import Mock, call, create_autospec, patch

import pytest
from google.protobuf.message import Message as ProtoMessage
from neonize.client import NewClient
from neonize.events import (
    EVENT_TO_INT,
    ClientOutdatedEv,
    ConnectedEv,
    ConnectFailureEv,
    DisconnectedEv,
    Event,
    KeepAliveRestoredEv,
    KeepAliveTimeoutEv,
    LoggedOutEv,
    MessageEv,
    PairStatusEv,
    QREv,
    ReceiptEv,
    StreamErrorEv,
    StreamReplacedEv,
    TemporaryBanEv,
    UndecryptableMessageEv,
)
from neonize.exc import LogoutError, NeonizeError, SendMessageError
from neonize.proto.Neonize_pb2 import JID, ConnectFailureReason, Node, SendResponse
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message
from neonize.utils.enum import ChatPresence as NeonizeChatPresence
from neonize.utils.enum import ChatPresenceMedia, ClientName, ReceiptType
from neonize.utils.jid import build_jid

from session_host.network.neonize import NeonizePort, NeonizeSession, NeonizeTimings
from session_host.network.neonize.clients import ClientRegistry
from session_host.network.neonize.jids import iso_utc
from session_host.network.neonize.locks import GoCallGate
from session_host.network.neonize.store import DeviceStore
from session_host.network.port import (
    ChatPresence,
    NetworkError,
    NetworkErrorKind,
    NetworkEvent,
    SentMessage,
    SessionState,
)

HANDLERS = "session_host.network.neonize.handlers"
DEVICE_ID = "3f1c2b9e-0d7a-4c55-9a61-2f0e8b7c6d5a"
ACCOUNT = JID(User="12025550123", Device=7, Server="s.whatsapp.net", RawAgent=0, Integrator=0, IsEmpty=False)
ACCOUNT_JID = "12025550123@s.whatsapp.net"

FAST = NeonizeTimings(
    first_qr_ttl=60.0,
    next_qr_ttl=20.0,
    qr_timeout_grace=15.0,
    first_qr_wait=2.0,
    start_hold=0.005,
    sink_timeout=2.0,
    stop_join=2.0,
)


class FakeNetwork:
    """Creates autospec clients where the adapter constructs ``NewClient``."""

    def __init__(self) -> None:
        self.clients: list[Any] = []
        self.on_connect: Callable[[Any], None] | None = None

    def new_client(self, name: str, jid: JID | None = None, **_: Any) -> Any:
        client = create_autospec(NewClient, instance=True)
        client.name = name
        client.jid = jid
        client.uuid = (jid.User if jid else name).encode()
        client.event = Event(client)
        client.connect_started = threading.Event()
        stopped = threading.Event()

        def connect(proxy_settings: Any = None) -> None:
            client.connect_started.set()
            if self.on_connect is not None:
                self.on_connect(client)
            stopped.wait(5)  # neonize's connect() blocks until stop()

        client.connect.side_effect = connect
        client.stop.side_effect = stopped.set
        self.clients.append(client)
        return client

    @property
    def client(self) -> Any:
        assert self.clients, "no client was created"
        return self.clients[-1]


class Recorder:
    """The event sink: records every event in order."""

    def __init__(self) -> None:
        self.events: list[NetworkEvent] = []

    async def __call__(self, event: NetworkEvent) -> None:
        self.events.append(event)

    def named(self, *names: str) -> list[NetworkEvent]:
        return [event for event in self.events if event.name in names]

    def pairs(self) -> list[tuple[str, dict[str, Any]]]:
        return [(event.name, dict(event.data)) for event in self.events]


def patched_client(fake: FakeNetwork) -> Any:
    """Patch ``NewClient`` where the adapter constructs it, checking the real constructor signature."""
    signature = inspect.signature(NewClient)

    def construct(*args: Any, **kwargs: Any) -> Any:
        signature.bind(*args, **kwargs)  # TypeError on a call the real constructor would refuse
        return fake.new_client(*args, **kwargs)

    return patch("session_host.network.neonize.clients.NewClient", new=Mock(side_effect=construct))


def make_port(timings: NeonizeTimings = FAST, gate: GoCallGate | None = None) -> NeonizePort:
    return NeonizePort(timings=timings, gate=gate or GoCallGate(), registry=ClientRegistry())


def open_session(port: NeonizePort, data_dir: Path, sink: Recorder) -> NeonizeSession:
    return port.open_session(DEVICE_ID, data_dir=data_dir, sink=sink)


def execute(client: Any, event: ProtoMessage) -> None:
    """What neonize's Go callback does: hand serialized bytes to ``Event.execute``."""
    data = event.SerializeToString()
    buffer = ctypes.create_string_buffer(data, len(data))
    client.event.execute(0, ctypes.addressof(buffer), len(data), EVENT_TO_INT[type(event)])


async def deliver(client: Any, event: ProtoMessage) -> None:
    """Deliver an event on a worker thread, as the Go side does, and wait for the handler."""
    await asyncio.to_thread(execute, client, event)


async def show_qr(client: Any, code: str) -> None:
    """neonize's QR callback: ``event._qr(client, bytes)`` on the client thread."""
    await asyncio.to_thread(client.event._qr, client, code.encode())


async def login_status(client: Any, status: str) -> None:
    """neonize's login-status callback: two C string addresses (uuid, status)."""
    uuid = ctypes.create_string_buffer(client.uuid)
    text = ctypes.create_string_buffer(status.encode())
    await asyncio.to_thread(client._NewClient__onLoginStatus, ctypes.addressof(uuid), ctypes.addressof(text))


async def eventually(condition: Callable[[], bool], timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.005)


async def wait_connect_started(fake: FakeNetwork) -> Any:
    await eventually(lambda: bool(fake.clients) and fake.client.connect_started.is_set())
    return fake.client


# --- scenario helpers ---------------------------------------------------------------------


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def seed_paired(data_dir: Path) -> DeviceStore:
    """A device paired earlier: sidecar with the account JID, whatsmeow row in the database."""
    data_dir.mkdir(parents=True, exist_ok=True)
    store = DeviceStore(data_dir, DEVICE_ID)
    store.save_jid(ACCOUNT, now=1_700_000_000.0)
    with contextlib.closing(sqlite3.connect(store.db_path)) as db:
        db.execute("CREATE TABLE whatsmeow_device (jid TEXT PRIMARY KEY)")
        db.execute("INSERT INTO whatsmeow_device VALUES (?)", ("12025550123:7@s.whatsapp.net",))
        db.commit()
    return store


async def connected(data_dir: Path, fake: FakeNetwork, **port_args: Any) -> tuple[NeonizeSession, Recorder]:
    """A paired device, connected: the scenario most operations start from."""
    seed_paired(data_dir)
    sink = Recorder()
    session = open_session(make_port(**port_args), data_dir, sink)
    await session.connect()
    client = await wait_connect_started(fake)
    await deliver(client, ConnectedEv(status=True))
    assert session.state is SessionState.CONNECTED
    return session, sink


CONNECTED_DATA = {
    "device_id": DEVICE_ID,
    "status": "connected",
    "messaging_jid": ACCOUNT_JID,
    "is_connected": True,
    "is_logged_in": True,
}


# --- connect and pairing ------------------------------------------------------------------


def test_unpaired_connect_registers_every_handler_before_the_blocking_connect(tmp_path: Path) -> None:
    # Given an unpaired device
    fake = FakeNetwork()
    seen_at_connect: dict[str, Any] = {}

    def inspect(client: Any) -> None:
        seen_at_connect["codes"] = set(client.event.list_func)
        seen_at_connect["qr"] = client.event._qr

    fake.on_connect = inspect

    async def scenario() -> None:
        with patched_client(fake) as new_client:
            session = open_session(make_port(), tmp_path, Recorder())
            # When the session connects
            await session.connect()
            client = await wait_connect_started(fake)
            # Then one client was built on the device's own SQLite file, without a JID
            store = DeviceStore(tmp_path, DEVICE_ID)
            new_client.assert_called_once_with(store.db_name, jid=None)
            assert store.db_name == (
                f"{tmp_path}/{DEVICE_ID}.sqlite3?_journal_mode=WAL&_busy_timeout=10000&_foreign_keys=on&_x="
            )
            # And every handled event type was registered before connect() ran
            expected = {
                PairStatusEv, ConnectedEv, DisconnectedEv, LoggedOutEv, StreamReplacedEv, TemporaryBanEv,
                ConnectFailureEv, ClientOutdatedEv, StreamErrorEv, KeepAliveTimeoutEv,
                KeepAliveRestoredEv, MessageEv, ReceiptEv, UndecryptableMessageEv,
            }  # fmt: skip
            assert {EVENT_TO_INT[t] for t in expected} <= seen_at_connect["codes"]
            assert EVENT_TO_INT[QREv] not in seen_at_connect["codes"]  # QR codes come via event.qr
            assert seen_at_connect["qr"] is not Event._Event__onqr
            assert session.state is SessionState.PAIRING
            client.connect.assert_called_once_with()
            await session.close()

    run(scenario())


def test_qr_rotation_emits_qr_generated_with_each_code_and_expiry(tmp_path: Path) -> None:
    # Given a pairing session and a fixed clock
    fake = FakeNetwork()
    sink = Recorder()
    now = float(int(time.time()))

    async def scenario() -> None:
        with patched_client(fake), patch(f"{HANDLERS}.time", Mock(time=lambda: now)):
            session = open_session(make_port(), tmp_path, sink)
            await session.connect()
            client = await wait_connect_started(fake)
            # When the network shows a first QR code, then rotates it
            await show_qr(client, "2@first,abc")
            await show_qr(client, "2@second,def")
            # Then each code is emitted with its expiry (60 s first, 20 s after)
            assert sink.pairs() == [
                (
                    "qr.generated",
                    {"device_id": DEVICE_ID, "qr_code": "2@first,abc", "expires_at": iso_utc(now + 60)},
                ),
                (
                    "qr.generated",
                    {"device_id": DEVICE_ID, "qr_code": "2@second,def", "expires_at": iso_utc(now + 20)},
                ),
            ]
            assert session.current_qr == ("2@second,def", now + 20)
            await session.close()

    run(scenario())


def test_pair_success_stores_the_jid_then_connected_reports_the_device(tmp_path: Path) -> None:
    # Given a pairing session showing a QR code
    fake = FakeNetwork()
    sink = Recorder()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, sink)
            await session.connect()
            client = await wait_connect_started(fake)
            await show_qr(client, "2@code")
            # When the phone scans it: QR channel success, pair success, then connected
            await login_status(client, "success")
            await deliver(
                client,
                PairStatusEv(
                    ID=ACCOUNT, Platform="android", BusinessName="ACME", Status=PairStatusEv.SUCCESS
                ),
            )
            await deliver(client, ConnectedEv(status=True))
            # Then the account JID (device part included) is stored for the next start
            stored = json.loads((tmp_path / f"{DEVICE_ID}.json").read_text())
            assert stored["jid"] == {
                "User": "12025550123",
                "RawAgent": 0,
                "Device": 7,
                "Integrator": 0,
                "Server": "s.whatsapp.net",
            }
            assert DeviceStore(tmp_path, DEVICE_ID).load_jid() == ACCOUNT
            # And pair.success then device.connected were emitted
            assert sink.pairs()[1:] == [
                (
                    "pair.success",
                    {
                        "device_id": DEVICE_ID,
                        "messaging_jid": ACCOUNT_JID,
                        "platform": "android",
                        "business_name": "ACME",
                    },
                ),
                ("device.connected", CONNECTED_DATA),
            ]
            assert (session.state, session.jid, session.current_qr) == (
                SessionState.CONNECTED,
                ACCOUNT_JID,
                None,
            )
            await session.close()

    run(scenario())


def test_paired_device_resumes_with_the_stored_jid(tmp_path: Path) -> None:
    # Given a device paired before this process started
    seed_paired(tmp_path)
    fake = FakeNetwork()
    sink = Recorder()

    async def scenario() -> None:
        with patched_client(fake) as new_client:
            session = open_session(make_port(), tmp_path, sink)
            assert session.jid == ACCOUNT_JID
            # When it connects
            await session.connect()
            client = await wait_connect_started(fake)
            # Then the client resumes the stored account (NewClient(db, jid=...))
            new_client.assert_called_once_with(DeviceStore(tmp_path, DEVICE_ID).db_name, jid=ACCOUNT)
            assert session.state is SessionState.NOT_READY  # until the network confirms
            await deliver(client, ConnectedEv(status=True))
            assert sink.pairs() == [("device.connected", CONNECTED_DATA)]
            await session.close()

    run(scenario())


def test_stored_jid_unknown_to_the_database_is_dropped_and_pairing_starts(tmp_path: Path) -> None:
    # Given a sidecar whose account whatsmeow no longer has (database gone)
    seed_paired(tmp_path)
    (tmp_path / f"{DEVICE_ID}.sqlite3").unlink()
    fake = FakeNetwork()
    sink = Recorder()

    async def scenario() -> None:
        with patched_client(fake) as new_client:
            session = open_session(make_port(), tmp_path, sink)
            # When it connects
            await session.connect()
            await wait_connect_started(fake)
            # Then it does not hand whatsmeow a missing device: it reports the logout and pairs anew
            new_client.assert_called_once_with(DeviceStore(tmp_path, DEVICE_ID).db_name, jid=None)
            assert sink.pairs() == [
                (
                    "device.logged_out",
                    {
                        "device_id": DEVICE_ID,
                        "status": "logged_out",
                        "is_connected": False,
                        "is_logged_in": False,
                        "reason": "credentials_missing",
                    },
                ),
            ]
            assert not (tmp_path / f"{DEVICE_ID}.json").exists()
            assert session.state is SessionState.PAIRING
            await session.close()

    run(scenario())


def test_pair_phone_waits_for_the_first_qr_before_asking_for_a_code(tmp_path: Path) -> None:
    # Given an unpaired device
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, Recorder())
            # When a pair code is asked before the network showed any QR code
            pending = asyncio.create_task(session.pair_phone("12025550123"))
            client = await wait_connect_started(fake)
            client.PairPhone.return_value = "ABCD-EFGH"
            await asyncio.sleep(0.05)
            # Then nothing is asked of the client yet
            client.PairPhone.assert_not_called()
            assert not pending.done()
            # And once the first QR arrives, the code is requested and returned
            await show_qr(client, "2@code")
            assert await pending == "ABCD-EFGH"
            client.PairPhone.assert_called_once_with("12025550123", True, ClientName.LINUX)
            await session.close()

    run(scenario())


def test_pair_phone_on_a_paired_device_raises_already_logged_in(tmp_path: Path) -> None:
    # Given a paired device
    seed_paired(tmp_path)
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, Recorder())
            # When a pair code is asked
            with pytest.raises(NetworkError) as raised:
                await session.pair_phone("12025550123")
            # Then it is refused without starting or touching any client
            assert raised.value.kind is NetworkErrorKind.ALREADY_LOGGED_IN
            assert fake.clients == []

    run(scenario())


def test_pair_phone_without_any_qr_times_out(tmp_path: Path) -> None:
    # Given a network that never shows a QR code
    fake = FakeNetwork()
    timings = replace(FAST, first_qr_wait=0.1)

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(timings), tmp_path, Recorder())
            # When a pair code is asked
            with pytest.raises(NetworkError) as raised:
                await session.pair_phone("12025550123")
            # Then it fails with TIMEOUT and PairPhone is never called on a client not ready for it
            assert raised.value.kind is NetworkErrorKind.TIMEOUT
            fake.client.PairPhone.assert_not_called()
            await session.close()

    run(scenario())


def test_qr_timeout_stops_the_client_and_reports_a_pair_error(tmp_path: Path) -> None:
    # Given a pairing session showing a QR code
    fake = FakeNetwork()
    sink = Recorder()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, sink)
            await session.connect()
            client = await wait_connect_started(fake)
            await show_qr(client, "2@code")
            # When the QR channel reports its timeout
            await login_status(client, "timeout")
            # Then the error is reported and the still-blocked connect() is stopped
            await eventually(lambda: client.stop.called)
            assert sink.pairs()[1:] == [
                (
                    "connection.pair_error",
                    {
                        "device_id": DEVICE_ID,
                        "reason": "qr_timeout",
                        "error": "the QR code expired before it was scanned",
                    },
                ),
            ]
            assert (session.state, session.current_qr) == (SessionState.NOT_READY, None)

    run(scenario())


def test_qr_watchdog_stops_pairing_when_no_code_follows_the_last_one(tmp_path: Path) -> None:
    # Given short QR lifetimes and no timeout report from the QR channel
    fake = FakeNetwork()
    sink = Recorder()
    timings = replace(FAST, first_qr_ttl=0.05, qr_timeout_grace=0.05)

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(timings), tmp_path, sink)
            await session.connect()
            client = await wait_connect_started(fake)
            # When the only QR code expires and nothing else happens
            await show_qr(client, "2@code")
            # Then the session gives up: pair error and stop
            await eventually(lambda: client.stop.called)
            assert [name for name, _ in sink.pairs()] == ["qr.generated", "connection.pair_error"]
            assert session.state is SessionState.NOT_READY

    run(scenario())


# --- ending sessions ----------------------------------------------------------------------


def test_logout_unlinks_stops_and_deletes_the_stored_jid_and_database(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device with its files on disk
            session, sink = await connected(tmp_path, fake)
            client = fake.client
            assert list(tmp_path.iterdir())
            # When it logs out
            await session.logout()
            # Then the network is told, connect() is made to return, and every file is gone
            client.logout.assert_called_once_with()
            client.stop.assert_called_once_with()
            assert list(tmp_path.iterdir()) == []
            assert sink.pairs()[-1] == (
                "device.logged_out",
                {
                    "device_id": DEVICE_ID,
                    "status": "logged_out",
                    "is_connected": False,
                    "is_logged_in": False,
                    "reason": "logout",
                },
            )
            assert (session.state, session.jid) == (SessionState.LOGGED_OUT, None)

    run(scenario())


def test_failed_logout_raises_network_error_and_keeps_the_credentials(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device whose unlink request fails
            session, _ = await connected(tmp_path, fake)
            fake.client.logout.side_effect = LogoutError("server returned error 500")
            # When it logs out
            with pytest.raises(NetworkError) as raised:
                await session.logout()
            # Then the library's message surfaces and nothing was deleted or stopped
            assert raised.value.kind is NetworkErrorKind.NETWORK
            assert "server returned error 500" in str(raised.value)
            assert (tmp_path / f"{DEVICE_ID}.json").exists()
            fake.client.stop.assert_not_called()
            assert session.state is SessionState.CONNECTED
            await session.close()

    run(scenario())


def test_disconnect_stops_the_client_keeps_the_login_and_reports_it(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            client = fake.client
            # When it disconnects
            await session.disconnect()
            # Then stop() (not disconnect(), which would leave connect() blocked) ended the run
            client.stop.assert_called_once_with()
            client.disconnect.assert_not_called()
            client.logout.assert_not_called()
            assert (tmp_path / f"{DEVICE_ID}.json").exists()
            assert sink.pairs()[-1] == (
                "device.disconnected",
                {
                    "device_id": DEVICE_ID,
                    "status": "disconnected",
                    "is_connected": False,
                    "is_logged_in": True,
                    "reason": "manual",
                },
            )
            assert (session.state, session.jid) == (SessionState.DISCONNECTED, ACCOUNT_JID)

    run(scenario())


def test_disconnect_while_pairing_reports_a_device_not_ready(tmp_path: Path) -> None:
    fake = FakeNetwork()
    sink = Recorder()

    async def scenario() -> None:
        with patched_client(fake):
            # Given an unpaired device showing a QR code
            session = open_session(make_port(), tmp_path, sink)
            await session.connect()
            client = await wait_connect_started(fake)
            await show_qr(client, "2@code")
            # When it disconnects
            await session.disconnect()
            # Then the pairing run is stopped and reported as not logged in
            client.stop.assert_called_once_with()
            assert sink.pairs()[-1] == (
                "device.disconnected",
                {
                    "device_id": DEVICE_ID,
                    "status": "not_ready",
                    "is_connected": False,
                    "is_logged_in": False,
                    "reason": "manual",
                },
            )
            assert (session.state, session.current_qr) == (SessionState.NOT_READY, None)

    run(scenario())


def test_close_stops_without_logout_and_without_events(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            before = len(sink.events)
            # When the host closes it
            await session.close()
            # Then the client is stopped, still logged in, and nothing is emitted
            fake.client.stop.assert_called_once_with()
            fake.client.logout.assert_not_called()
            assert len(sink.events) == before
            assert session.jid == ACCOUNT_JID

    run(scenario())


def test_server_side_drop_and_whatsmeow_reconnect_map_to_disconnected_then_connected(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            # When the network drops the connection and whatsmeow reconnects by itself
            await deliver(fake.client, DisconnectedEv(status=True))
            assert session.state is SessionState.DISCONNECTED
            await deliver(fake.client, ConnectedEv(status=True))
            # Then both transitions are reported and the client was never stopped
            assert sink.pairs() == [
                ("device.connected", CONNECTED_DATA),
                (
                    "device.disconnected",
                    {
                        "device_id": DEVICE_ID,
                        "status": "disconnected",
                        "is_connected": False,
                        "is_logged_in": True,
                        "reason": "connection_lost",
                    },
                ),
                ("device.connected", CONNECTED_DATA),
            ]
            fake.client.stop.assert_not_called()
            await session.close()

    run(scenario())


def test_logged_out_by_the_network_reports_and_deletes_the_credentials(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            # When the phone removes the linked device
            await deliver(
                fake.client, LoggedOutEv(OnConnect=False, Reason=ConnectFailureReason.Value("LOGGED_OUT"))
            )
            # Then logged_out is reported, the client stopped and the files deleted
            assert sink.pairs()[-1] == (
                "device.logged_out",
                {
                    "device_id": DEVICE_ID,
                    "status": "logged_out",
                    "is_connected": False,
                    "is_logged_in": False,
                    "reason": "logged_out",
                },
            )
            await eventually(lambda: fake.client.stop.called and not list(tmp_path.iterdir()))
            assert (session.state, session.jid) == (SessionState.LOGGED_OUT, None)

    run(scenario())


def test_stream_replaced_reports_and_stops_without_reconnecting(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            # When another client takes over the same credentials
            await deliver(fake.client, StreamReplacedEv())
            # Then both events are emitted, the client is stopped, and the login is kept
            assert [name for name, _ in sink.pairs()] == [
                "device.connected", "connection.stream_replaced", "device.disconnected",
            ]  # fmt: skip
            assert sink.events[-1].data["reason"] == "stream_replaced"
            await eventually(lambda: fake.client.stop.called)
            assert (session.state, session.jid) == (SessionState.DISCONNECTED, ACCOUNT_JID)

    run(scenario())


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (
            KeepAliveTimeoutEv(ErrorCount=2, LastSuccess=1_700_000_000),
            (
                "connection.keepalive_timeout",
                {"device_id": DEVICE_ID, "error_count": 2, "last_success": "2023-11-14T22:13:20.000Z"},
            ),
        ),
        (KeepAliveRestoredEv(), ("connection.keepalive_restored", {"device_id": DEVICE_ID})),
        (
            ConnectFailureEv(
                Reason=ConnectFailureReason.Value("SERVICE_UNAVAILABLE"),
                Message="try later",
                Raw=Node(Tag="failure"),
            ),
            (
                "connection.failure",
                {"device_id": DEVICE_ID, "reason": "service_unavailable", "message": "try later"},
            ),
        ),
    ],
)
def test_connection_health_events_keep_the_session_running(tmp_path: Path, event: Any, expected: Any) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            # When the connection reports its health
            await deliver(fake.client, event)
            # Then the catalog event is emitted and the session stays up
            assert sink.pairs()[-1] == expected
            assert session.state is SessionState.CONNECTED
            fake.client.stop.assert_not_called()
            await session.close()

    run(scenario())


def test_temporary_ban_reports_and_stops(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            _session, sink = await connected(tmp_path, fake)
            # When the network bans it for an hour
            await deliver(
                fake.client, TemporaryBanEv(Code=TemporaryBanEv.SEND_TO_TOO_MANY_PEOPLE, Expire=3600)
            )
            # Then the ban and the disconnection are reported and the client stopped
            ban = sink.named("connection.temporary_ban")[0].data
            assert (ban["device_id"], ban["code"], ban["expire_seconds"]) == (
                DEVICE_ID,
                "send_to_too_many_people",
                3600,
            )
            assert sink.events[-1].data["reason"] == "temporary_ban"
            await eventually(lambda: fake.client.stop.called)

    run(scenario())


def test_connect_that_fails_at_once_is_reported(tmp_path: Path) -> None:
    # Given a client whose connect() raises straight away
    fake = FakeNetwork()
    sink = Recorder()

    def fail(client: Any) -> None:
        raise NeonizeError("unable to open database file")

    fake.on_connect = fail

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, sink)
            # When the session connects
            await session.connect()
            # Then the failure is reported, not lost on the client thread
            await eventually(lambda: bool(sink.events))
            assert sink.pairs() == [
                (
                    "connection.failure",
                    {
                        "device_id": DEVICE_ID,
                        "reason": "session_ended",
                        "message": "unable to open database file",
                    },
                ),
            ]
            assert session.state is SessionState.NOT_READY

    run(scenario())


# --- operations ---------------------------------------------------------------------------


def test_send_text_sends_a_conversation_message_and_returns_the_network_answer(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, _ = await connected(tmp_path, fake)
            fake.client.send_message.return_value = SendResponse(ID="3EB0C0FFEE", Timestamp=1_700_000_123)
            # When it sends a text to a phone number
            sent = await session.send_text("5511999998888", "hello")
            # Then the message goes to the user JID and the network's id and time come back
            fake.client.send_message.assert_called_once_with(
                build_jid("5511999998888"), Message(conversation="hello")
            )
            assert sent == SentMessage(
                message_id="3EB0C0FFEE", chat_jid="5511999998888@s.whatsapp.net", timestamp=1_700_000_123.0
            )
            await session.close()

    run(scenario())


def test_chat_presence_and_read_receipts_use_the_library_enums(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, _ = await connected(tmp_path, fake)
            group = JID(
                User="120363000000000001", Server="g.us", Device=0, RawAgent=0, Integrator=0, IsEmpty=False
            )
            # When it shows typing, stops, and marks two messages read in a group
            await session.send_chat_presence("120363000000000001@g.us", ChatPresence.COMPOSING)
            await session.send_chat_presence("120363000000000001@g.us", ChatPresence.PAUSED)
            await session.mark_read("120363000000000001@g.us", "5511999998888@s.whatsapp.net", ["ID1", "ID2"])
            # Then the library gets its own enums and JIDs
            media = ChatPresenceMedia.CHAT_PRESENCE_MEDIA_TEXT
            assert fake.client.send_chat_presence.call_args_list == [
                call(group, NeonizeChatPresence.CHAT_PRESENCE_COMPOSING, media),
                call(group, NeonizeChatPresence.CHAT_PRESENCE_PAUSED, media),
            ]
            fake.client.mark_read.assert_called_once_with(
                "ID1", "ID2", chat=group, sender=build_jid("5511999998888"), receipt=ReceiptType.READ
            )
            await session.close()

    run(scenario())


@pytest.mark.parametrize(
    "operation",
    [
        lambda s: s.send_text("5511999998888", "hello"),
        lambda s: s.send_chat_presence("5511999998888", ChatPresence.COMPOSING),
        lambda s: s.mark_read("5511999998888", "5511999998888", ["ID1"]),
    ],
    ids=["send_text", "send_chat_presence", "mark_read"],
)
def test_operations_on_a_session_not_connected_raise_without_touching_the_client(
    tmp_path: Path, operation: Any
) -> None:
    # Given a paired device whose connect() has started but not connected yet
    seed_paired(tmp_path)
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, Recorder())
            # When an operation runs before connect() and while connecting
            with pytest.raises(NetworkError) as before:
                await operation(session)
            await session.connect()
            client = await wait_connect_started(fake)
            with pytest.raises(NetworkError) as during:
                await operation(session)
            # Then both fail NOT_CONNECTED and the client saw nothing but connect()
            assert before.value.kind is during.value.kind is NetworkErrorKind.NOT_CONNECTED
            assert [name for name, *_ in client.mock_calls] == ["connect"]
            await session.close()

    run(scenario())


@pytest.mark.parametrize(
    ("library_message", "kind"),
    [
        ("failed to send message: websocket not connected", NetworkErrorKind.NETWORK),
        ("server returned error 429: rate-overlimit", NetworkErrorKind.RATE_LIMITED),
        ("info query timed out", NetworkErrorKind.TIMEOUT),
    ],
)
def test_library_exceptions_become_network_errors_with_the_library_message(
    tmp_path: Path, library_message: str, kind: NetworkErrorKind
) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device whose send fails in the library
            session, _ = await connected(tmp_path, fake)
            fake.client.send_message.side_effect = SendMessageError(library_message)
            # When it sends
            with pytest.raises(NetworkError) as raised:
                await session.send_text("5511999998888", "hello")
            # Then the error is typed and carries the library's message
            assert raised.value.kind is kind
            assert library_message in str(raised.value)
            await session.close()

    run(scenario())


# --- robustness ---------------------------------------------------------------------------


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
