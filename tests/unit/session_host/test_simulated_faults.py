"""Simulated sessions: injected faults on operations, connects and automatic reconnects."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from fakes_simulated import (
    CONTACT,
    CONTACT_JID,
    JID,
    PHONE,
    fast_network,
    network_timers_passed,
    open_session,
    paired,
)

from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError, SessionState


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("network", ErrorKind.NETWORK),
        ("timeout", ErrorKind.TIMEOUT),
        ("rate_limited", ErrorKind.RATE_LIMITED),
    ],
)
def test_faults_fail_the_next_calls_then_clear(tmp_path: Path, error: str, kind: ErrorKind) -> None:
    async def scenario() -> None:
        # Given a connected device and two faults of one kind on send_text
        network = fast_network(timeout_fault_delay=0.05)
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        network.inject_fault("send_text", error, count=2)

        # When it sends three times
        outcomes = []
        for _ in range(3):
            started = time.monotonic()
            try:
                await session.sending.send_text(CONTACT_JID, "hi")
                outcomes.append(("sent", time.monotonic() - started))
            except NetworkError as failure:
                outcomes.append((failure.kind, time.monotonic() - started))

        # Then the first two fail that way (a timeout after waiting) and the third goes out
        assert [outcome for outcome, _ in outcomes] == [kind, kind, "sent"]
        if kind is ErrorKind.TIMEOUT:
            assert all(elapsed >= 0.045 for _, elapsed in outcomes[:2])
        assert len(network.inbox(CONTACT)["messages"]) == 1
        await session.close()

    asyncio.run(scenario())


def test_faults_can_target_one_device_and_other_operations(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given two connected devices and a fault on mark_read of the second only
        network = fast_network()
        alice, _ = await paired(network, tmp_path, "dev-a", PHONE)
        bob, _ = await paired(network, tmp_path, "dev-b", CONTACT)
        network.inject_fault("mark_read", "network", device_id="dev-b")

        # When both mark a message read
        await alice.messages.mark_read(CONTACT_JID, CONTACT_JID, ["3EB0AAAA"])
        with pytest.raises(NetworkError) as failed:
            await bob.messages.mark_read(JID, JID, ["3EB0BBBB"])

        # Then only the targeted device failed, once
        assert failed.value.kind is ErrorKind.NETWORK
        await bob.messages.mark_read(JID, JID, ["3EB0BBBB"])
        assert network.pending_faults() == []
        await alice.close()
        await bob.close()

    asyncio.run(scenario())


def test_connect_and_pair_phone_faults(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given faults on connect and on pair_phone
        network = fast_network()
        network.inject_fault("connect", "network")
        network.inject_fault("pair_phone", "rate_limited")
        session, recorder = open_session(network, tmp_path)

        # When the session connects twice and asks for a pair code twice
        await session.connect()
        failure = await recorder.wait_for("connection.failure")
        assert session.state is SessionState.NOT_READY
        await session.connect()
        with pytest.raises(NetworkError) as code_failed:
            await session.pair_phone(PHONE)
        code = await session.pair_phone(PHONE)

        # Then the first attempt failed by its event (the session idle after it), each call
        # worked the second time
        assert failure.data == {
            "device_id": "dev-1",
            "reason": "dial_error",
            "message": "simulated network fault on connect",
            "permanent": False,
        }
        assert code_failed.value.kind is ErrorKind.RATE_LIMITED
        assert network.enter_pair_code(PHONE, code) == JID
        await recorder.wait_for("device.connected")
        await session.close()

    asyncio.run(scenario())


@pytest.mark.parametrize(("error", "reason"), [("refused", "dial_error"), ("timeout", "timeout")])
def test_a_failed_reconnect_after_a_drop_is_reported_and_left_to_the_host(
    tmp_path: Path, error: str, reason: str
) -> None:
    async def scenario() -> None:
        # Given a connected device and a connect fault waiting
        network = fast_network(reconnect_delay=0.01)
        session, recorder = await paired(network, tmp_path)
        network.inject_fault("connect", error, device_id="dev-1")

        # When the network drops it
        network.drop("dev-1")

        # Then its own reconnect fails once, is reported, and the session stays down for the
        # host's supervisor (no second try of its own)
        failure = await recorder.wait_for("connection.failure")
        assert failure.data["reason"] == reason
        assert session.state is SessionState.DISCONNECTED
        await network_timers_passed(network, tmp_path)  # past a retry the session must not make
        assert recorder.names().count("device.connected") == 1
        await session.connect()
        await recorder.wait_for("device.connected", 2)
        await session.close()

    asyncio.run(scenario())


def test_a_hanging_dial_answers_nothing_until_closed(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a paired device that is down and a network that never answers its dial
        network = fast_network()
        session, recorder = await paired(network, tmp_path)
        await session.close()
        network.inject_fault("connect", "hang", device_id="dev-1")
        seen = len(recorder.events)

        # When it connects
        await session.connect()
        await session.connect()  # an attempt is open: a no-op

        # Then nothing is reported and nothing connects; a disconnect ends the attempt at once,
        # and the next attempt goes through. No twin can prove a hang: a hang arms no timer,
        # and the timer that ends one is the supervisor's dial deadline (test_host_supervision).
        # What can be proved: every timer the network arms has had its time (a twin's), and
        # nothing came before the disconnect's own event (the session reports in order).
        await network_timers_passed(network, tmp_path)
        assert session.state is SessionState.DISCONNECTED
        await session.disconnect()
        assert (await recorder.wait_for("device.disconnected")).data["reason"] == "manual"
        assert recorder.names()[seen:] == ["device.disconnected"]
        await session.connect()
        await recorder.wait_for("device.connected", 2)
        await session.close()

    asyncio.run(scenario())


def test_dial_faults_apply_to_connect_only() -> None:
    with pytest.raises(ValueError, match="connect"):
        fast_network().inject_fault("send_text", "hang")


def test_a_lost_answer_delivers_the_message_and_fails_the_send_as_a_timeout(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device whose next send's answer the network loses
        network = fast_network(timeout_fault_delay=0.05)
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        network.inject_fault("send_text", "ack_lost")

        # When it sends twice
        with pytest.raises(NetworkError) as lost:
            await session.sending.send_text(CONTACT_JID, "arrived anyway")
        await session.sending.send_text(CONTACT_JID, "next")

        # Then the first failed as a timeout though the contact has it, and the fault is spent
        assert lost.value.kind is ErrorKind.TIMEOUT
        assert [m["text"] for m in network.inbox(CONTACT)["messages"]] == ["arrived anyway", "next"]
        await session.close()

    asyncio.run(scenario())


def test_a_lost_answer_applies_to_sends_only() -> None:
    with pytest.raises(ValueError, match="send operations"):
        fast_network().inject_fault("mark_read", "ack_lost")
