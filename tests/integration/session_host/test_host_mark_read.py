"""The mark_read command on a session host: moto SQS and DynamoDB, the simulated network."""

from __future__ import annotations

from host_harness import Harness, wait_until

from gateway.bus import CommandName
from gateway.failures.kinds import ErrorKind

CONTACT = "15550002222"
CONTACT_JID = f"{CONTACT}@s.whatsapp.net"


def sent_status(harness: Harness, phone: str, message_id: str) -> str:
    """The receipt status the sending phone shows for one of its messages."""
    (entry,) = [m for m in harness.network.inbox(phone)["sent"] if m["message_id"] == message_id]
    return entry["status"]


def test_mark_read_sends_the_read_receipt_to_the_sender(harness: Harness) -> None:
    # Given a connected device that received a message from a contact
    harness.hosts.start()
    device = harness.new_device()
    jid = harness.pair(device)
    harness.network.create_account(CONTACT)
    message_id = harness.network.send_from_account(CONTACT, jid, "are you there?")
    wait_until(lambda: sent_status(harness, CONTACT, message_id) == "delivered", what="delivered")

    # When the device marks it as read
    reply = harness.send(
        CommandName.MARK_READ,
        device,
        chat_jid=CONTACT_JID,
        sender_jid=CONTACT_JID,
        message_ids=[message_id],
    )

    # Then the contact's phone shows the message read, and the reply shows the device connected
    assert reply.ok, reply
    assert reply.device is not None
    assert reply.device.status == "connected"
    assert sent_status(harness, CONTACT, message_id) == "read"


def test_mark_read_reaches_the_host_that_runs_the_device(harness: Harness) -> None:
    # Given host A runs a connected device that received a message, and host B starts afterwards
    owner = harness.hosts.start()
    device = harness.new_device()
    jid = harness.pair(device)
    other = harness.hosts.start()
    harness.network.create_account(CONTACT)
    message_id = harness.network.send_from_account(CONTACT, jid, "hello")

    # When the command arrives on host B's queue
    reply = harness.send_to(
        other.host.queue_url,
        CommandName.MARK_READ,
        device,
        chat_jid=CONTACT_JID,
        sender_jid=CONTACT_JID,
        message_ids=[message_id],
    )

    # Then B forwards it to A, which sends the receipt from the session it runs
    assert reply.ok, reply
    assert sent_status(harness, CONTACT, message_id) == "read"
    assert owner.host.owned_devices() == {device.device_id}
    assert other.host.owned_devices() == frozenset()


def test_mark_read_on_a_device_no_host_runs_starts_nothing(harness: Harness) -> None:
    # Given a running host and a logged-in device that was disconnected (no host runs it)
    host = harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)
    assert harness.send(CommandName.DISCONNECT, device).ok

    # When it is asked to mark messages as read
    reply = harness.send(
        CommandName.MARK_READ, device, chat_jid=CONTACT_JID, sender_jid=CONTACT_JID, message_ids=["3EB0AA"]
    )

    # Then no session runs it, and none is started for it
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.NOT_RUNNING)
    assert host.host.owned_devices() == frozenset()
    assert harness.network.connection_count(device.device_id) == 0


def test_mark_read_on_a_session_that_is_not_connected(harness: Harness) -> None:
    # Given a device that is pairing, and a paired one whose connection is lost and stays lost
    harness.hosts.start()
    pairing = harness.new_device()
    assert harness.send(CommandName.CONNECT, pairing).ok
    lost = harness.new_device()
    harness.pair(lost, phone="15550003333")
    harness.network.inject_fault("connect", "network", count=100, device_id=lost.device_id)
    harness.network.drop(lost.device_id)
    wait_until(lambda: lost.record().status == "disconnected", what="disconnected record")
    args = {"chat_jid": CONTACT_JID, "sender_jid": CONTACT_JID, "message_ids": ["3EB0AA"]}

    # When each is asked to mark messages as read
    replies = {
        "pairing": harness.send(CommandName.MARK_READ, pairing, **args),
        "disconnected": harness.send(CommandName.MARK_READ, lost, **args),
    }

    # Then both are refused as not connected, with the state the session is in
    for status, reply in replies.items():
        assert (reply.ok, reply.error_kind) == (False, ErrorKind.NOT_CONNECTED), reply
        assert reply.device is not None
        assert reply.device.status == status


def test_mark_read_failures_are_answered_with_their_kind(harness: Harness) -> None:
    # Given a connected device whose next mark_read fails on the network
    harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)
    harness.network.inject_fault("mark_read", "network", device_id=device.device_id)
    args = {"chat_jid": CONTACT_JID, "sender_jid": CONTACT_JID, "message_ids": ["3EB0AA"]}

    # When it marks messages as read twice
    failed = harness.send(CommandName.MARK_READ, device, **args)
    retried = harness.send(CommandName.MARK_READ, device, **args)

    # Then the network's failure comes back as its kind, and the retry works; the session
    # keeps running throughout (a command without message ids is refused by its contract,
    # tests/unit/test_bus_contracts.py)
    assert (failed.ok, failed.error_kind) == (False, ErrorKind.NETWORK)
    assert retried.ok, retried
    assert device.record().status == "connected"
