"""Simulated sessions across session hosts: own loops, ended loops, a host that crashes."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from fakes_simulated import (
    CONTACT,
    JID,
    PHONE,
    LoopThread,
    fast_network,
    network_timers_passed,
    open_session,
    paired,
)

from session_host.network.port import SessionState
from session_host.network.simulated import SimulatedPort
from session_host.network.simulated.model import ControlError


def test_two_hosts_on_their_own_loops_share_one_network(tmp_path: Path) -> None:
    # Given two session hosts, each with its own loop thread and port, on one network
    network = fast_network()
    network.create_account(CONTACT)
    with LoopThread() as host_a, LoopThread() as host_b:
        alice, alice_events = host_a.run(paired(network, tmp_path / "a", "dev-a", PHONE))
        bob, bob_events = host_b.run(paired(network, tmp_path / "b", "dev-b", "15550003333"))

        # When each device sends, and a contact writes to both
        host_a.run(alice.sending.send_text("15550003333@s.whatsapp.net", "from a"))
        host_b.run(bob.sending.send_text(JID, "from b"))
        network.send_from_account(CONTACT, JID, "to a")
        network.send_from_account(CONTACT, "15550003333@s.whatsapp.net", "to b")

        # Then each session sees its own traffic, on its own loop
        host_a.run(alice_events.wait_for("message.received", 2))
        host_b.run(bob_events.wait_for("message.received", 2))
        assert {e.data["content"] for e in alice_events.named("message.received")} == {"from b", "to a"}
        assert {e.data["content"] for e in bob_events.named("message.received")} == {"from a", "to b"}
        host_a.run(alice.close())
        host_b.run(bob.close())


def test_a_session_whose_loop_ended_is_cut_by_the_network(tmp_path: Path) -> None:
    # Given a device connected on a loop that then ended without closing the session
    network = fast_network()
    network.create_account(CONTACT)
    session, recorder = asyncio.run(paired(network, tmp_path))

    # When traffic arrives for it
    network.send_from_account(CONTACT, JID, "anyone?")

    # Then the network cuts the dead connection and keeps the message for later
    assert network.connection_count("dev-1") == 0
    assert network.queued_count("dev-1") == 1

    # And the same session object resumes on a new loop and gets it
    async def later() -> None:
        await session.connect()
        await recorder.wait_for("message.received")
        assert session.state is SessionState.CONNECTED
        await session.close()

    asyncio.run(later())
    assert recorder.names().count("device.connected") == 2


def test_a_crashed_host_leaves_no_connection_and_another_host_resumes_its_device(tmp_path: Path) -> None:
    # Given a device connected through host A's port, its credentials in the shared data dir
    network = fast_network()
    network.create_account(CONTACT)
    with LoopThread() as host_a, LoopThread() as host_b:
        port_a = SimulatedPort(network)
        _, first_events = host_a.run(paired(network, tmp_path, port=port_a))
        seen = first_events.names()

        # When host A's process dies (crash called from outside its loop)
        port_a.crash()

        # Then the network sees the connection vanish, quietly, and keeps traffic for the device
        assert network.connection_count("dev-1") == 0
        network.send_from_account(CONTACT, JID, "still there?")
        assert network.queued_count("dev-1") == 1
        # (twins on host A's loop, which still runs, wait out every timer of the network and
        # report through it: whatever A had scheduled has run by then)
        host_a.run(network_timers_passed(network, tmp_path))
        assert first_events.names() == seen
        assert (tmp_path / "dev-1.json").exists()

        # And host B resumes the device from the same credentials and gets what waited
        session, events = open_session(network, tmp_path, port=SimulatedPort(network))
        host_b.run(session.connect())
        host_b.run(events.wait_for("message.received"))
        assert events.names() == ["device.connected", "message.received"]
        assert session.state is SessionState.CONNECTED

        # And the device never ran twice at once
        assert network.max_simultaneous_connections("dev-1") == 1
        host_b.run(session.close())


def test_a_crash_stops_every_timer_of_the_host_without_a_word(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given one host showing QR codes for one device and waiting to reconnect another
        network = fast_network(qr_lifetimes=(0.05, 0.05, 0.05), reconnect_delay=0.1)
        port = SimulatedPort(network)
        pairing, pairing_events = open_session(network, tmp_path, "dev-1", port=port)
        await pairing.connect()
        dropped, dropped_events = await paired(network, tmp_path, "dev-2", PHONE, port=port)
        network.drop("dev-2")
        await dropped_events.wait_for("device.disconnected")
        seen = (pairing_events.names(), dropped_events.names())

        # When the host crashes (crash called on its own loop)
        port.crash()
        await network_timers_passed(network, tmp_path)

        # Then no QR rotates, no pairing window ends, no reconnect happens, nothing is emitted
        assert (pairing_events.names(), dropped_events.names()) == seen
        assert network.connection_count("dev-1") == network.connection_count("dev-2") == 0
        with pytest.raises(ControlError) as no_qr:
            network.scan("dev-1", CONTACT)
        assert no_qr.value.code == "DEVICE_NOT_FOUND"
        assert (pairing.state, pairing.current_qr) == (SessionState.NOT_READY, None)
        assert dropped.state is SessionState.DISCONNECTED
        assert dropped.jid == JID

    asyncio.run(scenario())


def test_a_crash_after_the_host_loop_stopped_still_cuts_its_connections(tmp_path: Path) -> None:
    # Given a device connected on a host whose loop then stopped dead (killed, not closed)
    network = fast_network()
    port = SimulatedPort(network)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    session, _ = asyncio.run_coroutine_threadsafe(paired(network, tmp_path, port=port), loop).result(5)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    assert network.connection_count("dev-1") == 1  # the network cannot tell yet

    # When the crash is played afterwards, from outside the dead loop
    port.crash()

    # Then the connection is gone, and another host resumes the device alone
    assert network.connection_count("dev-1") == 0
    assert session.state is SessionState.DISCONNECTED
    resumed, events = open_session(network, tmp_path, port=SimulatedPort(network))

    async def resume() -> None:
        await resumed.connect()
        await events.wait_for("device.connected")
        await resumed.close()

    asyncio.run(resume())
    assert events.named("connection.stream_replaced") == []
    assert network.max_simultaneous_connections("dev-1") == 1
    loop.close()
