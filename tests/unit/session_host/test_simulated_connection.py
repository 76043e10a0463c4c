"""Simulated sessions: connection loss, manual disconnect, a stream replaced by another client."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes_simulated import (
    CONTACT,
    CONTACT_JID,
    JID,
    fast_network,
    network_timers_passed,
    open_session,
    paired,
)

from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError, SessionState


def test_drop_disconnects_then_reconnects_and_delivers_what_was_queued(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and a contact, on a network that reconnects after 0.2 s
        network = fast_network(reconnect_delay=0.2)
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path)

        # When the network drops the device and the contact writes meanwhile
        assert network.drop("dev-1")
        lost = await recorder.wait_for("device.disconnected")
        assert session.state is SessionState.DISCONNECTED
        message_id = network.send_from_account(CONTACT, JID, "are you there?")
        assert network.queued_count("dev-1") == 1
        with pytest.raises(NetworkError) as offline:
            await session.sending.send_text(CONTACT_JID, "hello")
        assert offline.value.kind is ErrorKind.NOT_CONNECTED

        # Then the device reconnects by itself and gets the queued message after device.connected
        received = await recorder.wait_for("message.received")
        assert lost.data == {
            "device_id": "dev-1",
            "status": "disconnected",
            "is_connected": False,
            "is_logged_in": True,
            "reason": "connection_lost",
        }
        names = recorder.names()
        assert names.index("device.disconnected") < names.index("device.connected", 3)
        assert names.index("device.connected", 3) < names.index("message.received")
        assert received.data["message_id"] == message_id
        assert received.data["content"] == "are you there?"
        assert session.state is SessionState.CONNECTED
        assert network.queued_count("dev-1") == 0

        # And the contact's phone now shows the message as delivered
        assert network.inbox(CONTACT)["sent"][0]["status"] == "delivered"
        await session.close()

    asyncio.run(scenario())


def test_manual_disconnect_keeps_the_login_and_does_not_reconnect(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device
        network = fast_network()
        session, recorder = await paired(network, tmp_path)

        # When it disconnects
        await session.disconnect()

        # Then it is disconnected for good, still logged in
        event = await recorder.wait_for("device.disconnected")
        assert event.data["reason"] == "manual"
        assert event.data["is_logged_in"] is True
        await network_timers_passed(network, tmp_path)
        assert session.state is SessionState.DISCONNECTED
        assert recorder.names().count("device.connected") == 1
        assert network.connection_count("dev-1") == 0
        assert (tmp_path / "dev-1.json").exists()

        # And messages for it wait on the network until it connects again
        network.create_account(CONTACT)
        network.send_from_account(CONTACT, JID, "later")
        await session.connect()
        await recorder.wait_for("message.received")
        await session.close()

    asyncio.run(scenario())


def test_stream_replaced_and_the_simultaneous_connection_record(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device connected on one host
        network = fast_network()
        first, first_events = await paired(network, tmp_path / "host-a")
        assert network.max_simultaneous_connections("dev-1") == 1

        # When a second host connects the same device with a copy of its credentials
        (tmp_path / "host-b").mkdir()
        (tmp_path / "host-b" / "dev-1.json").write_text((tmp_path / "host-a" / "dev-1.json").read_text())
        second, second_events = open_session(network, tmp_path / "host-b")
        await second.connect()
        await second_events.wait_for("device.connected")

        # Then the older connection is replaced and cut, without reconnecting
        replaced = await first_events.wait_for("connection.stream_replaced")
        assert replaced.data["device_id"] == "dev-1"
        await first_events.wait_for("device.disconnected")
        assert first_events.named("device.disconnected")[0].data["reason"] == "stream_replaced"
        assert first.state is SessionState.DISCONNECTED
        assert second.state is SessionState.CONNECTED
        await network_timers_passed(network, tmp_path)
        assert first.state is SessionState.DISCONNECTED
        assert network.connection_count("dev-1") == 1

        # And the network remembers that the device ran twice at once
        assert network.max_simultaneous_connections("dev-1") == 2
        assert network.max_simultaneous_connections("never-seen") == 0
        await first.close()
        await second.close()

    asyncio.run(scenario())
