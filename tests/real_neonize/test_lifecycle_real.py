"""A session's attempts on the real library: what a failed dial or a failure the network
reports produces, what the device shows while it dials, and that the next connect() starts a
new attempt."""

from __future__ import annotations

import asyncio
import ctypes
from typing import Any

import pytest
from google.protobuf.message import Message as ProtoMessage
from neonize.events import EVENT_TO_INT, ConnectFailureEv, StreamErrorEv
from neonize.proto.Neonize_pb2 import ConnectFailureReason, Node
from recording_sink import RecordingSink
from session_support import REAL_TIMINGS, SessionFactory, run, timed, until
from waiting import PROMPTLY

from gateway.failures.kinds import ErrorKind
from local_stack.played_network import Mode, PlayedNetwork
from session_host.network.neonize import NeonizeSession
from session_host.network.port import NetworkError, SessionState


def new_device(
    sessions: SessionFactory, network: PlayedNetwork, mode: Mode
) -> tuple[NeonizeSession, RecordingSink, int]:
    """A session of a new device and its sink, the network now playing ``mode``; the dials so far."""
    network.play(mode)
    session, sink = sessions.open()
    return session, sink, network.dials


@pytest.mark.parametrize("mode", ["refuse", "reset"])
def test_a_refused_dial_reports_one_failure_and_the_next_connect_tries_again(
    neonize_sessions: SessionFactory, network: PlayedNetwork, mode: Mode
) -> None:
    # Given a device that never paired, on a network that refuses (or resets) every connection
    session, sink, dials = new_device(neonize_sessions, network, mode)

    async def scenario() -> None:
        # When it connects
        took, _ = await timed(session.connect())
        # Then connect() returned at once, and one connection.failure reports the dial
        assert took < PROMPTLY
        await until(lambda: len(sink.events) == 1, what="connection.failure")
        failure = sink.events[0]
        assert failure.name == "connection.failure"
        assert failure.data["device_id"] == session.device_id
        assert (failure.data["reason"], failure.data["permanent"]) == ("dial_error", False)
        assert "failed to dial" in failure.data["message"]
        assert network.dials == dials + 1
        # And the session is idle: nothing runs, the device shows not_ready
        assert session.state is SessionState.NOT_READY
        await until(lambda: session._last_run.finished.is_set(), what="the run stopped")
        took, refused = await timed(session.pair_phone("5511999998888"))
        assert isinstance(refused, NetworkError)
        assert (refused.kind, took < PROMPTLY) == (ErrorKind.NOT_CONNECTED, True)
        # When it connects again
        await session.connect()
        # Then a new attempt reached the network and failed the same way, once
        await until(lambda: len(sink.events) == 2, what="second connection.failure")
        assert network.dials == dials + 2
        assert [event.data["reason"] for event in sink.events] == ["dial_error", "dial_error"]

    run(scenario())


@pytest.mark.parametrize("mode", ["silent", "slow"])
def test_a_device_dialing_a_hanging_network_shows_not_ready_and_closes_at_once(
    neonize_sessions: SessionFactory, network: PlayedNetwork, mode: Mode
) -> None:
    # Given a network that accepts and never answers (or trickles its answer)
    session, sink, dials = new_device(neonize_sessions, network, mode)

    async def scenario() -> None:
        # When the device connects and its dial hangs
        await session.connect()
        network.wait_dials(dials + 1)
        # Then it shows not_ready, never pairing: no QR code exists, and pair codes wait for one
        assert (session.state, session.current_qr) == (SessionState.NOT_READY, None)
        took, refused = await timed(session.pair_phone("5511999998888"))
        assert isinstance(refused, NetworkError)
        assert refused.kind is ErrorKind.TIMEOUT
        assert took < REAL_TIMINGS.first_qr_wait + PROMPTLY
        # And connect() while it dials is a no-op (no second dial)
        await session.connect()
        assert network.dials == dials + 1
        # When it is disconnected
        took, _ = await timed(session.disconnect())
        # Then disconnect() returned at once, reported it, and nothing was stopped yet
        assert took < PROMPTLY
        assert [event.name for event in sink.events] == ["device.disconnected"]
        assert sink.events[0].data["status"] == "not_ready"
        assert not session._last_run.finished.is_set()
        # And once the network lets the dial end, the run is stopped without another event
        network.play("refuse")
        await until(lambda: session._last_run.finished.is_set(), what="the run stopped")
        assert [event.name for event in sink.events] == ["device.disconnected"]

    run(scenario())


def test_a_connect_after_close_waits_for_the_hanging_run_of_its_own_device_only(
    neonize_sessions: SessionFactory, network: PlayedNetwork
) -> None:
    # Given a device whose dial hangs, closed
    session, sink, dials = new_device(neonize_sessions, network, "silent")
    other, _ = neonize_sessions.open()

    async def scenario() -> None:
        await session.connect()
        network.wait_dials(dials + 1)
        await session.close()
        # When the device connects again while its first run still dials, and so does another device
        took, _ = await timed(session.connect())
        assert took < PROMPTLY
        await other.connect()
        # Then the other device dials at once; the device itself only once its previous run ended
        network.wait_dials(dials + 2, timeout=PROMPTLY)
        assert network.dials == dials + 2
        network.play("refuse")  # the first run's dial fails; the device's new attempt goes out
        await until(lambda: network.dials >= dials + 3, what="the device's new dial")
        await until(lambda: len(sink.events) == 1, what="the new attempt's failure")
        assert sink.events[0].data["reason"] == "dial_error"

    run(scenario())


def execute(client: Any, event: ProtoMessage) -> None:
    """What the Go side does with an event: serialized bytes handed to neonize's Event.execute."""
    data = event.SerializeToString()
    buffer = ctypes.create_string_buffer(data, len(data))
    client.event.execute(0, ctypes.addressof(buffer), len(data), EVENT_TO_INT[type(event)])


@pytest.mark.parametrize(
    ("event", "reason", "message"),
    [
        (
            ConnectFailureEv(
                Reason=ConnectFailureReason.Value("SERVICE_UNAVAILABLE"),
                Message="try later",
                Raw=Node(Tag="failure"),
            ),
            "connect_failure",
            "service_unavailable: try later",
        ),
        (StreamErrorEv(Code="503", Raw=Node(Tag="stream:error")), "stream_error", "stream error 503"),
    ],
)
def test_a_failure_the_network_reports_leaves_an_idle_session_that_connects_again(
    neonize_sessions: SessionFactory, network: PlayedNetwork, event: ProtoMessage, reason: str, message: str
) -> None:
    # Given a device whose real client is running (its dial hangs on a silent network)
    session, sink, dials = new_device(neonize_sessions, network, "silent")

    async def scenario() -> None:
        await session.connect()
        await until(lambda: network.dials > dials, what="the dial")
        client = session._last_run.client
        # When the network reports a failure whatsmeow does not retry (delivered as Go delivers it)
        await asyncio.to_thread(execute, client, event)
        # Then one retryable connection.failure, and the session is idle
        assert [(e.name, e.data) for e in sink.events] == [
            (
                "connection.failure",
                {"device_id": session.device_id, "reason": reason, "message": message, "permanent": False},
            )
        ]
        assert session.state is SessionState.NOT_READY
        # When it connects again (the ended run is stopped once its dial is over)
        took, _ = await timed(session.connect())
        assert took < PROMPTLY
        network.play("refuse")
        # Then the new attempt reaches the network and reports its own outcome
        await until(lambda: len(sink.events) == 2, what="the new attempt's failure")
        assert sink.events[1].data["reason"] == "dial_error"
        assert network.dials >= dials + 2

    run(scenario())
