"""The neonize adapter: starting a session, pairing by QR code or pair code, resuming."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest.mock import Mock, patch

import pytest
from fakes_neonize import (
    ACCOUNT,
    ACCOUNT_JID,
    CONNECTED_DATA,
    DEVICE_ID,
    FAST,
    HANDLERS,
    FakeNetwork,
    deliver,
    eventually,
    login_status,
    make_port,
    open_session,
    patched_client,
    run,
    seed_paired,
    show_qr,
    wait_connect_started,
)
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
from neonize.exc import NeonizeError
from neonize.utils.enum import ClientName
from recording_sink import RecordingSink
from waiting import PROMPTLY

from gateway.failures.kinds import ErrorKind
from session_host.network.neonize.store import DeviceStore
from session_host.network.payloads import iso_utc
from session_host.network.port import NetworkError, SessionState


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
            session = open_session(make_port(), tmp_path, RecordingSink())
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
            client.connect.assert_called_once_with()
            # And the device shows pairing only once the network showed a QR code
            assert (session.state, session.current_qr) == (SessionState.NOT_READY, None)
            await show_qr(client, "2@first")
            assert session.state is SessionState.PAIRING
            await session.close()

    run(scenario())


def test_qr_rotation_emits_qr_generated_with_each_code_and_expiry(tmp_path: Path) -> None:
    # Given a pairing session and a fixed clock
    fake = FakeNetwork()
    sink = RecordingSink()
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
    sink = RecordingSink()

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
    sink = RecordingSink()

    async def scenario() -> None:
        with patched_client(fake) as new_client:
            session = open_session(make_port(), tmp_path, sink)
            assert session.jid == ACCOUNT_JID
            # When it connects
            await session.connect()
            client = await wait_connect_started(fake)
            # Then the client resumes the stored account (NewClient(db, jid=...))
            new_client.assert_called_once_with(DeviceStore(tmp_path, DEVICE_ID).db_name, jid=ACCOUNT)
            assert session.state is SessionState.DISCONNECTED  # paired, until the network confirms
            await deliver(client, ConnectedEv(status=True))
            assert sink.pairs() == [("device.connected", CONNECTED_DATA)]
            await session.close()

    run(scenario())


def test_stored_jid_unknown_to_the_database_is_dropped_and_pairing_starts(tmp_path: Path) -> None:
    # Given a sidecar whose account whatsmeow no longer has (database gone)
    seed_paired(tmp_path)
    (tmp_path / f"{DEVICE_ID}.sqlite3").unlink()
    fake = FakeNetwork()
    sink = RecordingSink()

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
            assert session.state is SessionState.LOGGED_OUT  # until a QR code exists
            await session.close()

    run(scenario())


def test_pair_phone_waits_for_the_first_qr_before_asking_for_a_code(tmp_path: Path) -> None:
    # Given an unpaired device whose session has just started
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, RecordingSink())
            await session.connect()
            client = await wait_connect_started(fake)
            client.PairPhone.return_value = "ABCD-EFGH"
            # When a pair code is asked before the network showed any QR code
            pending = asyncio.create_task(session.pair_phone("12025550123"))
            # Then nothing is asked of the client yet (a twin asked after it, whose network
            # shows no QR code either, gives up at its own shorter wait first)
            twin_port = make_port(replace(FAST, first_qr_wait=0.1))
            twin = twin_port.open_session("device-twin", data_dir=tmp_path, sink=RecordingSink())
            await twin.connect()
            await wait_connect_started(fake)
            with pytest.raises(NetworkError) as gave_up:
                await twin.pair_phone("12025550124")
            assert gave_up.value.kind is ErrorKind.TIMEOUT
            await twin.close()
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
            session = open_session(make_port(), tmp_path, RecordingSink())
            # When a pair code is asked
            with pytest.raises(NetworkError) as raised:
                await session.pair_phone("12025550123")
            # Then it is refused without starting or touching any client
            assert raised.value.kind is ErrorKind.ALREADY_LOGGED_IN
            assert fake.clients == []

    run(scenario())


def test_pair_phone_never_starts_a_session(tmp_path: Path) -> None:
    # Given an unpaired device whose session is not running
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, RecordingSink())
            # When a pair code is asked
            with pytest.raises(NetworkError) as raised:
                await session.pair_phone("12025550123")
            # Then it is not connected, and no client was built for it
            assert raised.value.kind is ErrorKind.NOT_CONNECTED
            assert fake.clients == []

            # And once a pairing session ended (QR window over), it is not connected either
            await session.connect()
            client = await wait_connect_started(fake)
            await show_qr(client, "2@code")
            await login_status(client, "timeout")
            await eventually(lambda: client.stop.called)
            with pytest.raises(NetworkError) as ended:
                await session.pair_phone("12025550123")
            assert ended.value.kind is ErrorKind.NOT_CONNECTED
            client.PairPhone.assert_not_called()

    run(scenario())


def test_pair_phone_without_any_qr_times_out(tmp_path: Path) -> None:
    # Given a network that never shows a QR code
    fake = FakeNetwork()
    timings = replace(FAST, first_qr_wait=0.1)

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(timings), tmp_path, RecordingSink())
            await session.connect()
            # When a pair code is asked
            with pytest.raises(NetworkError) as raised:
                await session.pair_phone("12025550123")
            # Then it fails with TIMEOUT and PairPhone is never called on a client not ready for it
            assert raised.value.kind is ErrorKind.TIMEOUT
            fake.client.PairPhone.assert_not_called()
            await session.close()

    run(scenario())


def test_qr_timeout_stops_the_client_and_reports_a_pair_error(tmp_path: Path) -> None:
    # Given a pairing session showing a QR code
    fake = FakeNetwork()
    sink = RecordingSink()

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
    sink = RecordingSink()
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


def test_pair_phone_stops_waiting_when_the_attempt_ends_before_any_qr(tmp_path: Path) -> None:
    # Given an unpaired device whose dial fails a moment after it started
    fake = FakeNetwork()

    def fail_soon(_client: Any) -> None:
        time.sleep(0.1)
        raise NeonizeError("failed to dial whatsapp web websocket: unexpected EOF")

    fake.on_connect = fail_soon

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(replace(FAST, first_qr_wait=30.0)), tmp_path, RecordingSink())
            await session.connect()
            # When a pair code is asked while it dials (the wait for a QR code would be 30 s)
            started = time.monotonic()
            with pytest.raises(NetworkError) as raised:
                await session.pair_phone("5511999998888")
            # Then the answer comes when the attempt ends, not after the whole wait for a QR code
            assert raised.value.kind is ErrorKind.NOT_CONNECTED
            assert time.monotonic() - started < PROMPTLY
            await session.close()

    run(scenario())
