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
    StreamErrorEv,
    StreamReplacedEv,
    TemporaryBanEv,
)
from neonize.exc import NeonizeError
from neonize.proto.Neonize_pb2 import ConnectFailureReason, Node
from recording_sink import RecordingSink

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


def connect_failure(reason: str, message: str = "") -> ConnectFailureEv:
    return ConnectFailureEv(
        Reason=ConnectFailureReason.Value(reason), Message=message, Raw=Node(Tag="failure")
    )


def failure(reason: str, message: str, *, permanent: bool = False) -> tuple[str, dict[str, Any]]:
    data = {"device_id": DEVICE_ID, "reason": reason, "message": message, "permanent": permanent}
    return ("connection.failure", data)


def disconnected(reason: str) -> tuple[str, dict[str, Any]]:
    data = {
        "device_id": DEVICE_ID,
        "status": "disconnected",
        "is_connected": False,
        "is_logged_in": True,
        "reason": reason,
    }
    return ("device.disconnected", data)


@pytest.mark.parametrize(
    ("event", "reported"),
    [
        (
            connect_failure("SERVICE_UNAVAILABLE", "try later"),
            [
                failure("connect_failure", "service_unavailable: try later"),
                disconnected("service_unavailable"),
            ],
        ),
        (connect_failure("GENERIC"), [failure("connect_failure", "generic"), disconnected("generic")]),
        (
            StreamErrorEv(Code="500", Raw=Node(Tag="stream:error")),
            [failure("stream_error", "stream error 500"), disconnected("stream_error")],
        ),
    ],
)
def test_a_failure_whatsmeow_does_not_retry_leaves_an_idle_session_that_connects_again(
    tmp_path: Path, event: Any, reported: list[Any]
) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            client = fake.client
            # When the network ends the connection in a way whatsmeow will not retry
            await deliver(client, event)
            # Then one connection.failure (retryable) and the disconnection are reported
            assert sink.pairs()[1:] == reported
            # And the run is retired: stopped in the background, the session idle
            await eventually(lambda: client.stop.called)
            assert (session.state, session.jid) == (SessionState.DISCONNECTED, ACCOUNT_JID)
            # And connect() starts a fresh attempt on the same client object
            await session.connect()
            await eventually(lambda: client.connect.call_count == 2)
            await deliver(client, ConnectedEv(status=True))
            assert session.state is SessionState.CONNECTED
            assert fake.clients == [client]
            await session.close()

    run(scenario())


@pytest.mark.parametrize("code", ["LOGGED_OUT", "MAIN_DEVICE_GONE", "UNKNOWN_LOGOUT"])
def test_a_connect_failure_for_an_unlinked_device_is_a_logout(tmp_path: Path, code: str) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            # When the network refuses it as unlinked
            await deliver(fake.client, connect_failure(code))
            # Then it is logged out (no connection.failure), stopped, and its files deleted
            assert sink.pairs()[1:] == [
                (
                    "device.logged_out",
                    {
                        "device_id": DEVICE_ID,
                        "status": "logged_out",
                        "is_connected": False,
                        "is_logged_in": False,
                        "reason": code.lower(),
                    },
                ),
            ]
            await eventually(lambda: fake.client.stop.called and not list(tmp_path.iterdir()))
            assert session.state is SessionState.LOGGED_OUT

    run(scenario())


def test_a_connect_failure_for_a_ban_or_an_outdated_client_is_reported_as_such(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            # When the network refuses it as temporarily banned
            await deliver(fake.client, connect_failure("TEMP_BANNED"))
            # Then the ban is reported (its end unknown), and the session is idle
            assert sink.pairs()[1] == (
                "connection.temporary_ban",
                {"device_id": DEVICE_ID, "code": "temp_banned", "expire_seconds": None, "expires_at": None},
            )
            await eventually(lambda: fake.client.stop.called)
            # When it connects again and the network calls the client outdated
            await session.connect()
            await eventually(lambda: fake.client.connect.call_count == 2)
            await deliver(fake.client, connect_failure("CLIENT_OUTDATED"))
            # Then that failure is permanent
            assert sink.pairs()[-1] == failure(
                "client_outdated",
                "the network refuses this client version; neonize needs an update",
                permanent=True,
            )
            assert session.state is SessionState.DISCONNECTED
            await eventually(lambda: fake.client.stop.call_count == 2)

    run(scenario())


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        ("unable to open database file", "session_ended"),
        (
            "failed to dial whatsapp web websocket: failed to WebSocket dial: failed to send handshake "
            'request: Get "https://web.whatsapp.com/ws/chat": dial tcp: lookup web.whatsapp.com: '
            "no such host",
            "dial_error",
        ),
        (
            "failed to dial whatsapp web websocket: failed to WebSocket dial: failed to send handshake "
            'request: Get "https://web.whatsapp.com/ws/chat": context deadline exceeded',
            "timeout",
        ),
    ],
)
def test_connect_that_fails_at_once_is_reported_and_the_next_connect_tries_again(
    tmp_path: Path, error: str, reason: str
) -> None:
    # Given a client whose connect() raises straight away, as neonize does on a failed dial
    fake = FakeNetwork()
    sink = RecordingSink()
    fake.on_connect = lambda _client: (_ for _ in ()).throw(NeonizeError(error))

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, sink)
            # When the session connects
            await session.connect()
            # Then the failure is reported once, not lost on the client thread
            await eventually(lambda: bool(sink.events))
            assert sink.pairs() == [failure(reason, error)]
            assert session.state is SessionState.NOT_READY
            # And the ended run is stopped (the Go side forgets it), then a new connect() tries again
            client = fake.client
            await eventually(lambda: client.stop.called)
            await session.connect()
            await eventually(lambda: client.connect.call_count == 2 and len(sink.events) == 2)
            assert sink.pairs() == [failure(reason, error)] * 2
            await session.close()

    run(scenario())
