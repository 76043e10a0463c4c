"""The neonize adapter: what the network does to a running session (drops, logouts, bans)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes_neonize import (
    ACCOUNT_JID,
    CONNECTED_DATA,
    DEVICE_ID,
    FakeNetwork,
    Recorder,
    connected,
    deliver,
    eventually,
    make_port,
    open_session,
    patched_client,
    run,
)
from neonize.events import (
    ConnectedEv,
    ConnectFailureEv,
    DisconnectedEv,
    KeepAliveRestoredEv,
    KeepAliveTimeoutEv,
    LoggedOutEv,
    StreamReplacedEv,
    TemporaryBanEv,
)
from neonize.exc import NeonizeError
from neonize.proto.Neonize_pb2 import ConnectFailureReason, Node

from session_host.network.port import SessionState


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
