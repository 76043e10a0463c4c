"""Device sessions on the simulated network: pairing, resume, connection loss, traffic, faults."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from session_host.network.port import ChatPresence, NetworkError, NetworkErrorKind, SessionState
from session_host.network.simulated import SimulatedNetwork, SimulatedPort, SimulatedSession
from session_host.network.simulated.testing import EventRecorder, LoopThread

PHONE = "15550001111"
JID = f"{PHONE}@s.whatsapp.net"
CONTACT = "15550002222"
CONTACT_JID = f"{CONTACT}@s.whatsapp.net"


def fast_network(
    *,
    qr_lifetimes: tuple[float, ...] = (0.3, 0.1, 0.1),
    reconnect_delay: float = 0.05,
    timeout_fault_delay: float = 0.05,
) -> SimulatedNetwork:
    """A network with test-sized timings."""
    return SimulatedNetwork(
        qr_lifetimes=qr_lifetimes, reconnect_delay=reconnect_delay, timeout_fault_delay=timeout_fault_delay
    )


def open_session(
    network: SimulatedNetwork, data_dir: Path, device_id: str = "dev-1"
) -> tuple[SimulatedSession, EventRecorder]:
    recorder = EventRecorder()
    return SimulatedPort(network).open_session(device_id, data_dir=data_dir, sink=recorder), recorder


async def paired(
    network: SimulatedNetwork, data_dir: Path, device_id: str = "dev-1", phone: str = PHONE
) -> tuple[SimulatedSession, EventRecorder]:
    """A session paired by a QR scan, connected, with its events so far recorded."""
    session, recorder = open_session(network, data_dir, device_id)
    await session.connect()
    await recorder.wait_for("qr.generated")
    network.scan(device_id, phone)
    await recorder.wait_for("device.connected")
    return session, recorder


# --- pairing ------------------------------------------------------------------------------


def test_pairing_by_scan_stores_credentials_and_connects(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given an unpaired session that started and shows a QR code
        network = fast_network()
        session, recorder = open_session(network, tmp_path)
        assert session.state is SessionState.NOT_READY
        await session.connect()
        assert session.state is SessionState.PAIRING
        assert session.current_qr is not None  # shown before connect() returns
        qr = await recorder.wait_for("qr.generated")
        assert session.current_qr[0] == qr.data["qr_code"]
        assert session.current_qr[1] > time.time()
        assert qr.data["device_id"] == "dev-1"
        assert qr.data["expires_at"].endswith("Z")

        # When a phone scans it
        jid = network.scan("dev-1", PHONE)

        # Then the device pairs as that account, stores its credentials and is connected
        connected = await recorder.wait_for("device.connected")
        assert jid == JID
        assert recorder.names() == ["qr.generated", "pair.success", "device.connected"]
        assert recorder.of("pair.success")[0].data == {
            "device_id": "dev-1",
            "messaging_jid": JID,
            "platform": "simulated",
            "business_name": None,
        }
        assert connected.data == {
            "device_id": "dev-1",
            "status": "connected",
            "messaging_jid": JID,
            "is_connected": True,
            "is_logged_in": True,
        }
        assert session.state is SessionState.CONNECTED
        assert session.jid == JID
        assert session.current_qr is None
        stored = json.loads((tmp_path / "dev-1.json").read_text())
        assert stored["jid"] == JID
        assert stored["device_key"]
        await session.close()

    asyncio.run(scenario())


def test_pairing_by_pair_code(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a pairing session that asked for a pair code for a phone
        network = fast_network()
        session, recorder = open_session(network, tmp_path)
        await session.connect()
        code = await session.pair_phone(PHONE)
        assert len(code) == 9
        assert code[4] == "-"

        # When that phone enters the code
        jid = network.enter_pair_code(PHONE, code.lower().replace("-", ""))

        # Then the device pairs and connects
        await recorder.wait_for("device.connected")
        assert jid == JID
        assert session.state is SessionState.CONNECTED
        assert (tmp_path / "dev-1.json").exists()

        # And asking for another code now is refused
        with pytest.raises(NetworkError) as refused:
            await session.pair_phone(PHONE)
        assert refused.value.kind is NetworkErrorKind.ALREADY_LOGGED_IN
        await session.close()

    asyncio.run(scenario())


def test_pair_phone_needs_a_pairing_session_and_a_phone(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a session that did not start
        session, _ = open_session(fast_network(), tmp_path)

        # When it asks for a pair code, Then it is not connected
        with pytest.raises(NetworkError) as not_started:
            await session.pair_phone(PHONE)
        assert not_started.value.kind is NetworkErrorKind.NOT_CONNECTED

        # And once pairing, a bad phone is refused by the network
        await session.connect()
        with pytest.raises(NetworkError) as bad_phone:
            await session.pair_phone("12ab")
        assert bad_phone.value.kind is NetworkErrorKind.INVALID
        await session.close()

    asyncio.run(scenario())


def test_qr_codes_rotate_then_pairing_times_out(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a network whose QR window is three short codes
        network = fast_network(qr_lifetimes=(0.03, 0.02, 0.02))
        session, recorder = open_session(network, tmp_path)

        # When the session starts pairing and nobody scans
        await session.connect()
        error = await recorder.wait_for("connection.pair_error")

        # Then it showed three different codes and ended not ready
        codes = [event.data["qr_code"] for event in recorder.of("qr.generated")]
        assert len(codes) == 3
        assert len(set(codes)) == 3
        assert error.data["reason"] == "qr_timeout"
        assert error.data["device_id"] == "dev-1"
        assert session.state is SessionState.NOT_READY
        assert session.current_qr is None
        assert network.connection_count("dev-1") == 0

        # And connecting again opens a new pairing window, which a manual disconnect ends
        network.qr_lifetimes = (5.0,)
        await session.connect()
        await recorder.wait_for("qr.generated", 4)
        assert session.state is SessionState.PAIRING
        await session.disconnect()
        stopped = await recorder.wait_for("device.disconnected")
        assert stopped.data["status"] == "not_ready"
        assert stopped.data["is_logged_in"] is False
        assert session.state is SessionState.NOT_READY
        assert network.connection_count("dev-1") == 0
        await session.close()

    asyncio.run(scenario())


def test_resume_from_stored_credentials(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device paired by one session that was then closed (host stopping)
        network = fast_network()
        first, first_events = await paired(network, tmp_path)
        await first.close()
        assert first_events.names()[-1] == "device.connected"  # close is quiet

        # When a new session of the same device starts from its data dir
        session, recorder = open_session(network, tmp_path)
        assert session.state is SessionState.DISCONNECTED
        assert session.jid == JID
        await session.connect()

        # Then it resumes without pairing
        await recorder.wait_for("device.connected")
        assert recorder.names() == ["device.connected"]
        assert session.state is SessionState.CONNECTED
        await session.close()

    asyncio.run(scenario())


# --- connection loss ----------------------------------------------------------------------


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
            await session.send_text(CONTACT_JID, "hello")
        assert offline.value.kind is NetworkErrorKind.NOT_CONNECTED

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
        await asyncio.sleep(0.15)
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
        assert first_events.of("device.disconnected")[0].data["reason"] == "stream_replaced"
        assert first.state is SessionState.DISCONNECTED
        assert second.state is SessionState.CONNECTED
        await asyncio.sleep(0.15)
        assert first.state is SessionState.DISCONNECTED
        assert network.connection_count("dev-1") == 1

        # And the network remembers that the device ran twice at once
        assert network.max_simultaneous_connections("dev-1") == 2
        assert network.max_simultaneous_connections("never-seen") == 0
        await first.close()
        await second.close()

    asyncio.run(scenario())


# --- logout -------------------------------------------------------------------------------


def test_logout_deletes_credentials_and_a_stale_copy_resumes_logged_out(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device whose credentials someone copied
        network = fast_network()
        session, recorder = await paired(network, tmp_path)
        copy = (tmp_path / "dev-1.json").read_text()

        # When it logs out
        await session.logout()

        # Then its credentials are gone, it is logged out and the network forgot the key
        event = await recorder.wait_for("device.logged_out")
        assert event.data == {
            "device_id": "dev-1",
            "status": "logged_out",
            "is_connected": False,
            "is_logged_in": False,
            "reason": "logout",
        }
        assert session.state is SessionState.LOGGED_OUT
        assert session.jid is None
        assert not (tmp_path / "dev-1.json").exists()
        assert network.linked_jid("dev-1") is None

        # And a session resuming from the stale copy is logged out (and drops the copy)
        (tmp_path / "dev-1.json").write_text(copy)
        stale, stale_events = open_session(network, tmp_path)
        await stale.connect()
        await stale_events.wait_for("device.logged_out")
        assert stale.state is SessionState.LOGGED_OUT
        assert not (tmp_path / "dev-1.json").exists()

        # And connecting again starts a new pairing
        await stale.connect()
        await stale_events.wait_for("qr.generated")
        await stale.close()
        await session.close()

    asyncio.run(scenario())


def test_phone_unlinking_the_device_logs_the_session_out(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device
        network = fast_network()
        session, recorder = await paired(network, tmp_path)

        # When the phone removes it from its linked devices
        assert network.unlink("dev-1")

        # Then the session is logged out and its credentials deleted
        event = await recorder.wait_for("device.logged_out")
        assert event.data["reason"] == "logged_out"
        assert session.state is SessionState.LOGGED_OUT
        assert not (tmp_path / "dev-1.json").exists()
        await session.close()

    asyncio.run(scenario())


# --- traffic ------------------------------------------------------------------------------


def test_device_and_contact_exchange_messages_with_receipts(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and a contact
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path)

        # When the device sends a text
        sent = await session.send_text(CONTACT_JID, "hello Bob")

        # Then the network made the id, the contact has it, and it is delivered at once
        assert sent.message_id.startswith("3EB0")
        assert len(sent.message_id) == 20
        assert sent.chat_jid == CONTACT_JID
        message_sent = await recorder.wait_for("message.sent")
        assert message_sent.data["message_id"] == sent.message_id
        assert message_sent.data["content"] == "hello Bob"
        delivered = await recorder.wait_for("message.delivered")
        assert delivered.data["message_ids"] == [sent.message_id]
        assert delivered.data["chat_jid"] == CONTACT_JID
        assert delivered.data["receipt_type"] == "delivered"
        assert delivered.data["message_count"] == 1
        assert delivered.data["is_group"] is False
        assert delivered.data["delivered_at"].endswith("Z")
        inbox = network.inbox(CONTACT)
        assert inbox["messages"][0]["text"] == "hello Bob"
        assert inbox["messages"][0]["from"] == JID

        # When the contact reads it and answers
        network.read_by_account(CONTACT, JID, [sent.message_id])
        reply_id = network.send_from_account(CONTACT, JID, "hi!")

        # Then the device gets the read receipt and the message
        read = await recorder.wait_for("message.read")
        assert read.data["message_ids"] == [sent.message_id]
        assert read.data["reader"] == CONTACT_JID
        assert read.data["receipt_type"] == "read"
        received = await recorder.wait_for("message.received")
        assert received.data == {
            "message_id": reply_id,
            "from": CONTACT_JID,
            "to": JID,
            "chat_jid": CONTACT_JID,
            "content": "hi!",
            "message_type": "text",
            "is_from_me": False,
            "is_group": False,
            "push_name": "Bob",
            "timestamp": received.data["timestamp"],
        }

        # When the device marks the reply read and shows typing
        await session.mark_read(CONTACT_JID, CONTACT_JID, [reply_id])
        await session.send_chat_presence(CONTACT_JID, ChatPresence.COMPOSING)

        # Then the contact's phone sees both
        inbox = network.inbox(CONTACT)
        assert inbox["sent"][0]["status"] == "read"
        assert inbox["presence"][0]["from"] == JID
        assert inbox["presence"][0]["state"] == "composing"
        assert inbox["statuses"] == []
        await session.close()

    asyncio.run(scenario())


def test_two_devices_message_each_other(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given two devices paired to two accounts
        network = fast_network()
        alice, alice_events = await paired(network, tmp_path, "dev-a", PHONE)
        bob, bob_events = await paired(network, tmp_path, "dev-b", CONTACT)

        # When Alice writes to Bob and Bob reads it
        sent = await alice.send_text(CONTACT_JID, "hi Bob")
        received = await bob_events.wait_for("message.received")
        await bob.mark_read(JID, JID, [received.data["message_id"]])

        # Then Bob got it from Alice, and Alice got delivered then read receipts
        assert received.data["from"] == JID
        assert received.data["message_id"] == sent.message_id
        delivered = await alice_events.wait_for("message.delivered")
        read = await alice_events.wait_for("message.read")
        assert delivered.data["chat_jid"] == CONTACT_JID
        assert read.data["reader"] == CONTACT_JID
        assert read.data["message_ids"] == [sent.message_id]

        # And typing shows up as chat presence on Alice's side
        await bob.send_chat_presence(JID, ChatPresence.PAUSED)
        presence = await alice_events.wait_for("chat.presence")
        assert presence.data["sender"] == CONTACT_JID
        assert presence.data["state"] == "paused"
        await alice.close()
        await bob.close()

    asyncio.run(scenario())


def test_receipts_for_an_offline_sender_wait_for_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given Alice's message delivered to Bob, and Alice then offline
        network = fast_network()
        alice, alice_events = await paired(network, tmp_path, "dev-a", PHONE)
        bob, bob_events = await paired(network, tmp_path, "dev-b", CONTACT)
        sent = await alice.send_text(CONTACT_JID, "read me later")
        await bob_events.wait_for("message.received")
        await alice_events.wait_for("message.delivered")
        await alice.disconnect()

        # When Bob reads it while Alice is away
        await bob.mark_read(JID, JID, [sent.message_id])

        # Then Alice gets the read receipt when she is back
        await asyncio.sleep(0.02)
        assert alice_events.of("message.read") == []
        await alice.connect()
        read = await alice_events.wait_for("message.read")
        assert read.data["message_ids"] == [sent.message_id]
        await alice.close()
        await bob.close()

    asyncio.run(scenario())


def test_sending_to_someone_not_on_the_network(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device
        session, _ = await paired(fast_network(), tmp_path)

        # When it sends to an unknown number, a group and a malformed JID
        with pytest.raises(NetworkError) as unknown:
            await session.send_text("19990000000@s.whatsapp.net", "hello?")
        with pytest.raises(NetworkError) as group:
            await session.send_text("120363000000000000@g.us", "hello group")
        with pytest.raises(NetworkError) as malformed:
            await session.send_text("not-a-jid", "hello")

        # Then the network refuses each in its own way
        assert unknown.value.kind is NetworkErrorKind.NOT_FOUND
        assert group.value.kind is NetworkErrorKind.NOT_FOUND
        assert malformed.value.kind is NetworkErrorKind.INVALID
        await session.close()

    asyncio.run(scenario())


def test_operations_need_a_connected_session(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a session that is pairing (started, not paired)
        session, _ = open_session(fast_network(), tmp_path)
        await session.connect()

        # When it tries every operation, Then each fails as not connected
        for call in (
            session.send_text(CONTACT_JID, "hi"),
            session.send_chat_presence(CONTACT_JID, ChatPresence.COMPOSING),
            session.mark_read(CONTACT_JID, CONTACT_JID, ["3EB0"]),
            session.logout(),
        ):
            with pytest.raises(NetworkError) as refused:
                await call
            assert refused.value.kind is NetworkErrorKind.NOT_CONNECTED
        await session.close()

    asyncio.run(scenario())


# --- faults -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("network", NetworkErrorKind.NETWORK),
        ("timeout", NetworkErrorKind.TIMEOUT),
        ("rate_limited", NetworkErrorKind.RATE_LIMITED),
    ],
)
def test_faults_fail_the_next_calls_then_clear(tmp_path: Path, error: str, kind: NetworkErrorKind) -> None:
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
                await session.send_text(CONTACT_JID, "hi")
                outcomes.append(("sent", time.monotonic() - started))
            except NetworkError as failure:
                outcomes.append((failure.kind, time.monotonic() - started))

        # Then the first two fail that way (a timeout after waiting) and the third goes out
        assert [outcome for outcome, _ in outcomes] == [kind, kind, "sent"]
        if kind is NetworkErrorKind.TIMEOUT:
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
        await alice.mark_read(CONTACT_JID, CONTACT_JID, ["3EB0AAAA"])
        with pytest.raises(NetworkError) as failed:
            await bob.mark_read(JID, JID, ["3EB0BBBB"])

        # Then only the targeted device failed, once
        assert failed.value.kind is NetworkErrorKind.NETWORK
        await bob.mark_read(JID, JID, ["3EB0BBBB"])
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
        with pytest.raises(NetworkError) as connect_failed:
            await session.connect()
        assert session.state is SessionState.NOT_READY
        await session.connect()
        with pytest.raises(NetworkError) as code_failed:
            await session.pair_phone(PHONE)
        code = await session.pair_phone(PHONE)

        # Then each failed once and worked the second time
        assert connect_failed.value.kind is NetworkErrorKind.NETWORK
        assert code_failed.value.kind is NetworkErrorKind.RATE_LIMITED
        assert network.enter_pair_code(PHONE, code) == JID
        await recorder.wait_for("device.connected")
        await session.close()

    asyncio.run(scenario())


def test_reconnect_retries_through_connect_faults(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and two connect faults waiting
        network = fast_network(reconnect_delay=0.01)
        session, recorder = await paired(network, tmp_path)
        network.inject_fault("connect", "network", count=2, device_id="dev-1")

        # When the network drops it
        network.drop("dev-1")

        # Then the automatic reconnect fails twice and then succeeds
        await recorder.wait_for("device.connected", 2)
        assert session.state is SessionState.CONNECTED
        assert network.pending_faults() == []
        assert network.max_simultaneous_connections("dev-1") == 1
        await session.close()

    asyncio.run(scenario())


# --- hosts --------------------------------------------------------------------------------


def test_two_hosts_on_their_own_loops_share_one_network(tmp_path: Path) -> None:
    # Given two session hosts, each with its own loop thread and port, on one network
    network = fast_network()
    network.create_account(CONTACT)
    with LoopThread() as host_a, LoopThread() as host_b:
        alice, alice_events = host_a.run(paired(network, tmp_path / "a", "dev-a", PHONE))
        bob, bob_events = host_b.run(paired(network, tmp_path / "b", "dev-b", "15550003333"))

        # When each device sends, and a contact writes to both
        host_a.run(alice.send_text("15550003333@s.whatsapp.net", "from a"))
        host_b.run(bob.send_text(JID, "from b"))
        network.send_from_account(CONTACT, JID, "to a")
        network.send_from_account(CONTACT, "15550003333@s.whatsapp.net", "to b")

        # Then each session sees its own traffic, on its own loop
        host_a.run(alice_events.wait_for("message.received", 2))
        host_b.run(bob_events.wait_for("message.received", 2))
        assert {e.data["content"] for e in alice_events.of("message.received")} == {"from b", "to a"}
        assert {e.data["content"] for e in bob_events.of("message.received")} == {"from a", "to b"}
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
