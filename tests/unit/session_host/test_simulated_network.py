"""The simulated network as a unit: accounts, links, traffic, faults, rules and persistence.

Sessions are stood in for by plain ``deliver`` callbacks that record the signals.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE

from gateway.failures.kinds import ErrorKind
from session_host.network.simulated import REAL_QR_LIFETIMES, SimulatedNetwork
from session_host.network.simulated.model import ControlError


class Signals:
    """A stand-in session: records what the network hands it."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, kind: str, payload: Any) -> None:
        self.received.append((kind, dict(payload)))

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.received]

    def events(self, name: str) -> list[dict[str, Any]]:
        return [p["data"] for kind, p in self.received if kind == "event" and p["name"] == name]


def pair_device(network: SimulatedNetwork, device_id: str = "dev-1", phone: str = PHONE) -> dict[str, str]:
    """Pair a device through a QR scan; returns the credentials the session would store."""
    signals = Signals()
    conn = network.start_pairing(device_id, signals)
    assert network.show_qr(conn) is not None
    network.scan(device_id, phone)
    kind, payload = signals.received[-1]
    assert kind == "paired"
    network.leave(conn)
    return {"jid": payload["jid"], "device_key": payload["device_key"]}


def test_defaults_follow_the_real_network() -> None:
    # Given a network with default knobs, Then the QR window is ~160 s and reconnects wait 1 s
    network = SimulatedNetwork()
    assert network.qr_lifetimes == REAL_QR_LIFETIMES
    assert REAL_QR_LIFETIMES[0] == 60
    assert sum(REAL_QR_LIFETIMES) == 160
    assert network.reconnect_delay == 1.0
    with pytest.raises(ValueError, match="qr_lifetimes"):
        SimulatedNetwork(qr_lifetimes=())


def test_accounts_are_unique_phones() -> None:
    # Given a network with one contact
    network = SimulatedNetwork()
    created = network.create_account(CONTACT, "Bob")
    assert created == {"jid": CONTACT_JID, "lid": created["lid"], "phone": CONTACT, "name": "Bob"}

    # When the same phone or a malformed one joins, Then the network refuses
    with pytest.raises(ControlError) as duplicate:
        network.create_account(CONTACT)
    with pytest.raises(ControlError) as malformed:
        network.create_account("12-34")
    assert (duplicate.value.status, duplicate.value.code) == (409, "ACCOUNT_EXISTS")
    assert malformed.value.code == "VALIDATION_ERROR"
    with pytest.raises(ControlError) as missing:
        network.inbox("19990000000")
    assert (missing.value.status, missing.value.code) == (404, "ACCOUNT_NOT_FOUND")


def test_contacts_message_each_other_with_receipts_on_their_phones() -> None:
    # Given two contacts
    network = SimulatedNetwork()
    network.create_account(PHONE, "Alice")
    network.create_account(CONTACT, "Bob")

    # When Alice writes to Bob (by digits) and Bob reads it
    message_id = network.send_from_account(PHONE, CONTACT, "hi Bob")
    assert network.inbox(PHONE)["sent"][0]["status"] == "delivered"
    read = network.read_by_account(CONTACT, PHONE, [message_id, "3EB0UNKNOWN"])

    # Then Bob's inbox has it, read, and Alice's phone shows it read
    assert read == [message_id]
    message = network.inbox(CONTACT)["messages"][0]
    assert message["from"] == JID
    assert message["text"] == "hi Bob"
    assert message["push_name"] == "Alice"
    assert message["read"] is True
    assert network.inbox(PHONE)["sent"][0]["status"] == "read"

    # And reading what is not there, or writing to nobody, is refused
    with pytest.raises(ControlError) as not_there:
        network.read_by_account(CONTACT, PHONE, ["3EB0UNKNOWN"])
    with pytest.raises(ControlError) as nobody:
        network.send_from_account(PHONE, "19990000000@s.whatsapp.net", "hello?")
    with pytest.raises(ControlError) as garbage:
        network.send_from_account(PHONE, "nobody@example.com", "hello?")
    assert not_there.value.code == "MESSAGE_NOT_FOUND"
    assert (nobody.value.status, nobody.value.code) == (404, "RECIPIENT_NOT_FOUND")
    assert (garbage.value.status, garbage.value.code) == (400, "INVALID_CHAT_JID")


def test_scan_needs_a_device_showing_a_qr_code() -> None:
    # Given a network where no device shows a QR code
    network = SimulatedNetwork()

    # When a phone scans an unknown device, Then there is nothing to scan
    with pytest.raises(ControlError) as nothing:
        network.scan("dev-1", PHONE)
    assert (nothing.value.status, nothing.value.code) == (404, "DEVICE_NOT_FOUND")

    # When the device paired and left, Then a new scan says it is already logged in
    pair_device(network)
    with pytest.raises(ControlError) as paired:
        network.scan("dev-1", PHONE)
    assert (paired.value.status, paired.value.code) == (409, "ALREADY_LOGGED_IN")
    assert network.linked_jid("dev-1") == JID


def test_pair_codes_belong_to_the_phone_they_were_asked_for() -> None:
    # Given a pairing connection that asked for a code for one phone
    network = SimulatedNetwork()
    signals = Signals()
    conn = network.start_pairing("dev-1", signals)
    code = network.request_pair_code(conn, PHONE)

    # When another phone enters it, or a wrong code is entered, Then it is not found
    for phone, entered in ((CONTACT, code), (PHONE, "ZZZZ-ZZZZ")):
        with pytest.raises(ControlError) as refused:
            network.enter_pair_code(phone, entered)
        assert (refused.value.status, refused.value.code) == (404, "PAIR_CODE_NOT_FOUND")

    # When the right phone enters it, Then the device pairs and the window no longer times out
    assert network.enter_pair_code(PHONE, code) == JID
    assert signals.kinds() == ["paired"]
    assert network.end_pairing(conn) is False
    assert network.show_qr(conn) is None


def test_one_connection_per_linked_device() -> None:
    # Given a paired device connected once
    network = SimulatedNetwork()
    credentials = pair_device(network)
    first, second = Signals(), Signals()
    network.resume("dev-1", credentials, first)

    # When the same credentials connect again
    network.resume("dev-1", credentials, second)

    # Then the older connection is replaced and the record shows two at once
    assert first.kinds() == ["replaced"]
    assert second.kinds() == []
    assert network.connection_count("dev-1") == 1
    assert network.max_simultaneous_connections("dev-1") == 2

    # And unknown or revoked keys cannot connect
    assert network.resume("dev-1", {"jid": JID, "device_key": "forged"}, Signals()) is None
    assert network.unlink("dev-1")
    assert second.kinds() == ["logged_out"]
    assert network.resume("dev-1", credentials, Signals()) is None


def test_traffic_for_an_offline_device_is_queued_and_flushed_in_order() -> None:
    # Given a paired device that is offline and a contact writing to it three times
    network = SimulatedNetwork()
    credentials = pair_device(network)
    network.create_account(CONTACT)
    ids = [network.send_from_account(CONTACT, JID, f"message {n}") for n in range(3)]
    assert network.queued_count("dev-1") == 3
    assert {entry["status"] for entry in network.inbox(CONTACT)["sent"]} == {"sent"}

    # When the device connects
    signals = Signals()
    network.resume("dev-1", credentials, signals)

    # Then it gets all three in order and the contact sees them delivered
    assert [m["message_id"] for m in signals.events("message.received")] == ids
    assert network.queued_count("dev-1") == 0
    assert {entry["status"] for entry in network.inbox(CONTACT)["sent"]} == {"delivered"}


def test_drop_cuts_every_connection_of_the_device() -> None:
    # Given a connected device
    network = SimulatedNetwork()
    credentials = pair_device(network)
    signals = Signals()
    network.resume("dev-1", credentials, signals)

    # When the network drops it, Then its session is told and it has no connection left
    assert network.drop("dev-1") is True
    assert signals.received == [("dropped", {"reason": "connection_lost"})]
    assert network.connection_count("dev-1") == 0
    assert network.drop("dev-1") is False


def test_a_deliver_callback_that_fails_cuts_the_connection_and_keeps_the_traffic() -> None:
    # Given a device whose session can no longer take signals (its loop is gone)
    network = SimulatedNetwork()
    credentials = pair_device(network)
    network.create_account(CONTACT)

    def dead(kind: str, payload: Any) -> None:
        raise RuntimeError("Event loop is closed")

    network.resume("dev-1", credentials, dead)

    # When a message arrives, Then the connection is cut and the message kept
    network.send_from_account(CONTACT, JID, "hello")
    assert network.connection_count("dev-1") == 0
    assert network.queued_count("dev-1") == 1


def test_faults_validate_and_count_down_per_device() -> None:
    # Given a network
    network = SimulatedNetwork()

    # When faults with unknown names, errors or counts are injected, Then they are refused
    with pytest.raises(ValueError, match="operation"):
        network.inject_fault("fly", "network")
    with pytest.raises(ValueError, match="error"):
        network.inject_fault("send_text", "meltdown")
    with pytest.raises(ValueError, match="count"):
        network.inject_fault("send_text", "network", count=0)

    # When one fault targets a device and another any device
    network.inject_fault("send_text", "timeout", count=2, device_id="dev-1")
    network.inject_fault("send_text", "rate_limited")

    # Then calls consume them in order, each only where it applies
    assert kind_taken(network, "send_text", "dev-2") is ErrorKind.RATE_LIMITED
    assert network.take_fault("send_text", "dev-2") is None
    assert network.take_fault("mark_read", "dev-1") is None
    assert kind_taken(network, "send_text", "dev-1") is ErrorKind.TIMEOUT
    assert network.pending_faults() == [
        {
            "operation": "send_text",
            "error": "timeout",
            "count": 1,
            "device_id": "dev-1",
            "retry_after_seconds": None,
        }
    ]
    assert kind_taken(network, "send_text", "dev-1") is ErrorKind.TIMEOUT
    assert network.take_fault("send_text", "dev-1") is None


def test_state_survives_a_restart(tmp_path: Path) -> None:
    # Given a persistent network with a contact, a paired device and a message queued for it
    state = tmp_path / "state" / "network.json"
    network = SimulatedNetwork(state)
    network.create_account(CONTACT, "Bob")
    credentials = pair_device(network)
    message_id = network.send_from_account(CONTACT, JID, "kept across restarts")
    assert state.exists()

    # When the process restarts with the same state file
    restarted = SimulatedNetwork(state)

    # Then accounts, the device's key and the queued message are all there
    assert restarted.inbox(CONTACT)["sent"][0]["message_id"] == message_id
    assert restarted.linked_jid("dev-1") == JID
    assert restarted.queued_count("dev-1") == 1
    signals = Signals()
    assert restarted.resume("dev-1", credentials, signals) is not None
    assert [m["message_id"] for m in signals.events("message.received")] == [message_id]
    with pytest.raises(ControlError):
        restarted.create_account(CONTACT)

    # And a network without a state file starts empty
    assert SimulatedNetwork(tmp_path / "absent.json").linked_jid("dev-1") is None


def test_accounts_keep_their_lid_across_restarts(tmp_path: Path) -> None:
    # Given a persistent network with a contact, and a state saved before accounts had LIDs
    state = tmp_path / "network.json"
    lid = SimulatedNetwork(state).create_account(CONTACT, "Bob")["lid"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"version": 1, "accounts": [{"phone": PHONE}]}))

    # When the processes restart
    restarted, upgraded = SimulatedNetwork(state), SimulatedNetwork(old)

    # Then the contact keeps its LID, and names the same person as its JID
    world = restarted._world
    assert world.accounts[CONTACT].lid == lid
    assert world.person(lid) == world.person(CONTACT_JID) == world.person(CONTACT) == CONTACT_JID
    assert world.person("999999@lid") is None
    assert world.person("15559999999") is None
    assert world.person("120363000000000001@g.us") is None

    # And an account saved without one gets a LID of its own
    assert upgraded._world.person(upgraded._world.accounts[PHONE].lid) == JID


def test_concurrent_traffic_from_many_threads_is_consistent() -> None:
    # Given a paired, connected device and eight contacts
    network = SimulatedNetwork()
    credentials = pair_device(network)
    signals = Signals()
    network.resume("dev-1", credentials, signals)
    phones = [f"1555000{n:04d}" for n in range(10, 18)]
    for phone in phones:
        network.create_account(phone)

    # When every contact sends 50 messages at the same time from its own thread
    def send_all(phone: str) -> None:
        for n in range(50):
            network.send_from_account(phone, JID, f"{phone} {n}")

    threads = [threading.Thread(target=send_all, args=(phone,)) for phone in phones]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # Then the device got every message once, each sender's in its order
    received = signals.events("message.received")
    assert len(received) == 400
    assert len({m["message_id"] for m in received}) == 400
    for phone in phones:
        mine = [m["content"] for m in received if m["from"].startswith(phone)]
        assert mine == [f"{phone} {n}" for n in range(50)]


def kind_taken(network: SimulatedNetwork, operation: str, device_id: str) -> object:
    """The kind of the fault a call of ``operation`` consumed (None: no fault took it)."""
    fault = network.take_fault(operation, device_id)
    return fault.kind if fault is not None else None
