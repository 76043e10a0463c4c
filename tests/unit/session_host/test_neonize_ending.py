"""The neonize adapter: logout, disconnect and close, the endings the host asks for."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes_neonize import (
    ACCOUNT_JID,
    DEVICE_ID,
    FakeNetwork,
    connected,
    eventually,
    make_port,
    open_session,
    patched_client,
    run,
    seed_paired,
    show_qr,
    wait_connect_started,
)
from neonize.exc import LogoutError
from recording_sink import RecordingSink

from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError, SessionState

LOGGED_OUT_DATA = {
    "device_id": DEVICE_ID,
    "status": "logged_out",
    "is_connected": False,
    "is_logged_in": False,
    "reason": "logout",
}


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
            # Then the network is told, every file is gone, and connect() is made to return
            client.logout.assert_called_once_with()
            assert list(tmp_path.iterdir()) == []
            await eventually(lambda: client.stop.called)
            client.stop.assert_called_once_with()
            assert sink.pairs()[-1] == ("device.logged_out", LOGGED_OUT_DATA)
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
            assert raised.value.kind is ErrorKind.NETWORK
            assert "server returned error 500" in str(raised.value)
            assert (tmp_path / f"{DEVICE_ID}.json").exists()
            fake.client.stop.assert_not_called()
            assert session.state is SessionState.CONNECTED
            await session.close()

    run(scenario())


def test_logout_while_not_connected_deletes_the_credentials_locally(tmp_path: Path) -> None:
    fake = FakeNetwork()
    seed_paired(tmp_path)
    sink = RecordingSink()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a paired device whose session does not run (never started in this process)
            session = open_session(make_port(), tmp_path, sink)
            assert session.state is SessionState.DISCONNECTED
            # When it logs out
            await session.logout()
            # Then no client is built (the network cannot be told), the files are gone, and it is reported
            assert fake.clients == []
            assert list(tmp_path.iterdir()) == []
            assert sink.pairs() == [("device.logged_out", LOGGED_OUT_DATA)]
            assert (session.state, session.jid) == (SessionState.LOGGED_OUT, None)

    run(scenario())


def test_logout_after_close_forgets_a_device_the_network_cannot_unlink(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device whose unlink request fails
            session, sink = await connected(tmp_path, fake)
            fake.client.logout.side_effect = LogoutError("websocket not connected")
            with pytest.raises(NetworkError):
                await session.logout()
            # When the host closes the session and logs out again
            await session.close()
            await session.logout()
            # Then the credentials are deleted locally, the library asked only once, and it is reported
            fake.client.logout.assert_called_once_with()
            assert list(tmp_path.iterdir()) == []
            assert sink.pairs()[-1] == ("device.logged_out", LOGGED_OUT_DATA)
            assert session.state is SessionState.LOGGED_OUT

    run(scenario())


def test_logout_of_a_device_that_never_paired_is_refused(tmp_path: Path) -> None:
    fake = FakeNetwork()
    sink = RecordingSink()

    async def scenario() -> None:
        with patched_client(fake):
            # Given an unpaired device showing a QR code
            session = open_session(make_port(), tmp_path, sink)
            await session.connect()
            client = await wait_connect_started(fake)
            await show_qr(client, "2@code")
            # When it logs out
            with pytest.raises(NetworkError) as raised:
                await session.logout()
            # Then it is not logged in, and the pairing goes on untouched
            assert raised.value.kind is ErrorKind.NOT_CONNECTED
            assert str(raised.value) == "the device is not logged in"
            client.logout.assert_not_called()
            client.stop.assert_not_called()
            assert session.state is SessionState.PAIRING
            assert [name for name, _ in sink.pairs()] == ["qr.generated"]
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
            # Then, in the background, disconnect() waits out any dial and stop() ends the run
            # (disconnect() alone would leave connect() blocked)
            await eventually(lambda: client.stop.called)
            ending = [name for name, _, _ in client.method_calls if name in ("disconnect", "stop", "logout")]
            assert ending == ["disconnect", "stop"]
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
    sink = RecordingSink()

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
            await eventually(lambda: client.stop.called)
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
            await eventually(lambda: fake.client.stop.called)
            fake.client.stop.assert_called_once_with()
            fake.client.logout.assert_not_called()
            assert len(sink.events) == before
            assert session.jid == ACCOUNT_JID

    run(scenario())


def test_discard_deletes_the_store_of_a_device_that_only_began_pairing(tmp_path: Path) -> None:
    fake = FakeNetwork()
    sink = RecordingSink()

    async def scenario() -> None:
        with patched_client(fake):
            # Given an unpaired device that showed a QR code, closed, with its store on disk
            port = make_port()
            session = open_session(port, tmp_path, sink)
            await session.connect()
            await show_qr(await wait_connect_started(fake), "2@code")
            await session.close()
            (tmp_path / f"{DEVICE_ID}.sqlite3").write_bytes(b"whatsmeow store")
            (tmp_path / f"{DEVICE_ID}.sqlite3-wal").write_bytes(b"")
            # When the port discards it (the device is being deleted)
            port.discard(DEVICE_ID, data_dir=tmp_path)
            # Then nothing of it is left, and a new session of that id starts afresh
            assert list(tmp_path.glob(f"{DEVICE_ID}*")) == []
            assert open_session(port, tmp_path, sink) is not session

    run(scenario())


def test_discard_deletes_a_paired_devices_credentials_and_is_harmless_twice(tmp_path: Path) -> None:
    seed_paired(tmp_path)
    port = make_port()
    port.discard(DEVICE_ID, data_dir=tmp_path)
    port.discard(DEVICE_ID, data_dir=tmp_path)
    assert list(tmp_path.glob(f"{DEVICE_ID}*")) == []
