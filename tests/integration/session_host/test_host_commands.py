"""Device commands executed by a session host: moto SQS and DynamoDB, the simulated network."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from host_harness import PHONE, Harness, wait_until
from log_capture import logged, said

from gateway import leases
from gateway.bus import Command, CommandName, queues
from gateway.bus.contracts import NoArgs
from gateway.failures.kinds import ErrorKind

JID = f"{PHONE}@s.whatsapp.net"


def test_connect_on_the_shared_queue_pairs_by_qr_and_publishes_the_events(harness: Harness) -> None:
    # Given a running host and a new device no host runs
    host = harness.hosts.start()
    device = harness.new_device()

    # When the device connects through the shared queue, shows its QR code and a phone scans it
    connect = harness.send(CommandName.CONNECT, device)
    qr = harness.send(CommandName.QR, device)
    harness.network.scan(device.device_id, PHONE)

    # Then the host runs the device: its queue is on the record and the device pairs
    assert connect.ok
    assert connect.device is not None
    assert connect.device.status == "pairing"
    assert qr.ok
    assert qr.result["qr_code"]
    assert qr.result["expires_at"] > time.time()
    assert host.host.owned_devices() == {device.device_id}
    wait_until(lambda: device.record().status == "connected", what="connected record")
    saved = device.record()
    assert saved.host_queue_url == host.host.queue_url
    assert saved.wants_connection is True
    assert (saved.is_connected, saved.is_logged_in, saved.messaging_jid) == (True, True, JID)

    # And the events are published as envelopes routed by tenant and event name
    connected = harness.events.wait_for(device.device_id, "device.connected")
    assert connected["attributes"] == {"tenant_id": device.tenant_id, "event": "device.connected"}
    envelope = connected["envelope"]
    assert set(envelope) == {"id", "event", "timestamp", "device_id", "data"}
    assert len(envelope["id"]) == 32
    assert isinstance(envelope["timestamp"], int)
    assert envelope["data"] == {
        "device_id": device.device_id,
        "status": "connected",
        "messaging_jid": JID,
        "is_connected": True,
        "is_logged_in": True,
    }
    # (each once; SQS does not keep the order of messages, so neither does the test)
    expected = sorted(["qr.generated", "pair.success", "device.connected"])
    wait_until(lambda: sorted(harness.events.names(device.device_id)) == expected, what="the three events")
    qr_event = harness.events.of(device.device_id, "qr.generated")[0]["envelope"]
    assert qr_event["data"]["qr_code"] == qr.result["qr_code"]


def test_a_second_connect_is_a_no_op_and_ping_answers_without_a_device(harness: Harness) -> None:
    # Given a connected device
    host = harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)

    # When it is asked to connect again, and a ping arrives
    again = harness.send(CommandName.CONNECT, device)
    ping = harness.send(CommandName.PING, harness.new_device())

    # Then nothing changes and the host answers the ping itself
    assert again.ok
    assert again.device is not None
    assert again.device.status == "connected"
    assert harness.network.max_simultaneous_connections(device.device_id) == 1
    assert ping.ok
    assert ping.result == {"host_id": host.host.host_id}


def test_pair_phone_gives_a_code_the_phone_enters(harness: Harness) -> None:
    # Given a device that is pairing
    harness.hosts.start()
    device = harness.new_device()
    assert harness.send(CommandName.CONNECT, device).ok

    # When a pair code is asked for a phone and the phone enters it
    reply = harness.send(CommandName.PAIR_PHONE, device, phone=PHONE)
    harness.network.enter_pair_code(PHONE, reply.result["pair_code"])

    # Then the device pairs as that phone's account; pairing again is refused
    assert reply.ok
    wait_until(lambda: device.record().status == "connected", what="connected record")
    assert device.record().messaging_jid == JID
    for name, args in ((CommandName.QR, {}), (CommandName.PAIR_PHONE, {"phone": PHONE})):
        refused = harness.send(name, device, **args)
        assert (refused.ok, refused.error_kind) == (False, ErrorKind.ALREADY_LOGGED_IN)


def test_pair_phone_refuses_a_bad_phone(harness: Harness) -> None:
    # Given a device that is pairing
    harness.hosts.start()
    device = harness.new_device()
    assert harness.send(CommandName.CONNECT, device).ok

    # When the phone is not a phone number (a missing one is refused by the command's contract,
    # tests/unit/test_bus_contracts.py)
    malformed = harness.send(CommandName.PAIR_PHONE, device, phone="12ab")

    # Then it is invalid input
    assert (malformed.ok, malformed.error_kind) == (False, ErrorKind.INVALID)


def test_commands_for_a_device_no_host_runs(harness: Harness) -> None:
    # Given a running host and a device that never connected
    host = harness.hosts.start()
    device = harness.new_device()

    # When it is asked for a QR code, a pair code, a disconnect and a logout
    qr = harness.send(CommandName.QR, device)
    pair = harness.send(CommandName.PAIR_PHONE, device, phone=PHONE)
    disconnect = harness.send(CommandName.DISCONNECT, device)
    logout = harness.send(CommandName.LOGOUT, device)

    # Then nothing runs: no session, the disconnect is a no-op and the logout is refused
    assert (qr.ok, qr.error_kind) == (False, ErrorKind.NOT_RUNNING)
    assert (pair.ok, pair.error_kind) == (False, ErrorKind.NOT_RUNNING)
    assert disconnect.ok
    assert disconnect.device is not None
    assert disconnect.device.status == "not_ready"
    assert (logout.ok, logout.error_kind, logout.error_message) == (
        False,
        "not_connected",
        "the device is not logged in",
    )
    assert host.host.owned_devices() == frozenset()
    assert harness.network.connection_count(device.device_id) == 0
    assert leases.current(device.device_id) is None
    assert device.record().host_queue_url is None


def test_disconnect_keeps_the_login_and_connect_resumes_without_pairing(harness: Harness) -> None:
    # Given a connected device
    host = harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)

    # When it disconnects
    reply = harness.send(CommandName.DISCONNECT, device)

    # Then the session is closed and handed back, still logged in, and no longer wanted
    assert reply.ok
    assert reply.device is not None
    assert (reply.device.status, reply.device.is_connected, reply.device.is_logged_in) == (
        "disconnected",
        False,
        True,
    )
    saved = device.record()
    assert (saved.status, saved.is_logged_in, saved.wants_connection, saved.host_queue_url) == (
        "disconnected",
        True,
        False,
        None,
    )
    assert host.host.owned_devices() == frozenset()
    assert leases.current(device.device_id) is None
    assert harness.network.connection_count(device.device_id) == 0

    # When it connects again, it resumes from its credentials: connected, no QR code
    again = harness.send(CommandName.CONNECT, device)
    assert again.ok
    assert again.device is not None
    assert again.device.status == "connected"
    wait_until(lambda: device.record().status == "connected", what="connected record")
    assert harness.events.names(device.device_id).count("qr.generated") == 1


def test_logout_unlinks_the_running_device(harness: Harness) -> None:
    # Given a connected device
    host = harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)

    # When it logs out
    reply = harness.send(CommandName.LOGOUT, device)

    # Then the phone no longer lists it, the session is gone and the record says logged out
    assert reply.ok
    assert reply.device is not None
    assert reply.device.status == "logged_out"
    assert harness.network.linked_jid(device.device_id) is None
    saved = device.record()
    assert (saved.status, saved.is_connected, saved.is_logged_in, saved.wants_connection) == (
        "logged_out",
        False,
        False,
        False,
    )
    assert saved.host_queue_url is None
    assert saved.messaging_jid is None
    assert host.host.owned_devices() == frozenset()
    assert leases.current(device.device_id) is None
    harness.events.wait_for(device.device_id, "device.logged_out")


def test_logout_of_a_logged_in_device_no_host_runs_connects_it_to_unlink_it(harness: Harness) -> None:
    # Given a logged-in device that was disconnected (no host runs it)
    harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)
    assert harness.send(CommandName.DISCONNECT, device).ok

    # When it logs out
    reply = harness.send(CommandName.LOGOUT, device)

    # Then the host connected it and unlinked it on the network
    assert reply.ok
    assert reply.device is not None
    assert reply.device.status == "logged_out"
    assert harness.network.linked_jid(device.device_id) is None
    assert device.record().status == "logged_out"
    assert leases.current(device.device_id) is None


def test_delete_stops_everything_and_forgets_the_credentials(harness: Harness) -> None:
    # Given a connected device
    host = harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)

    # When it is deleted
    reply = harness.send(CommandName.DELETE, device)

    # Then nothing runs, the phone no longer lists it, and no credentials are left
    assert reply.ok
    assert host.host.owned_devices() == frozenset()
    assert leases.current(device.device_id) is None
    assert harness.network.linked_jid(device.device_id) is None
    assert not list(harness.hosts.data_dir.glob(f"{device.device_id}*"))


def test_delete_offline_still_forgets_the_credentials(harness: Harness) -> None:
    # Given a logged-in device no host runs, and a network that fails its connect
    harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)
    assert harness.send(CommandName.DISCONNECT, device).ok
    harness.network.inject_fault("connect", "network", device_id=device.device_id)

    # When it is deleted
    reply = harness.send(CommandName.DELETE, device)

    # Then the delete succeeds and the credentials are gone here (the phone still lists it)
    assert reply.ok
    assert not list(harness.hosts.data_dir.glob(f"{device.device_id}*"))
    assert leases.current(device.device_id) is None


def test_delete_of_a_device_that_never_paired_deletes_its_session_files(harness: Harness) -> None:
    # Given a pairing device (never paired) with files of its session on the host's disk, as
    # the real network's adapter keeps a store from the first QR code on
    host = harness.hosts.start()
    device = harness.new_device()
    assert harness.send(CommandName.CONNECT, device).ok
    stray = harness.hosts.data_dir / f"{device.device_id}.json"
    stray.write_text("{}")

    # When it is deleted
    reply = harness.send(CommandName.DELETE, device)

    # Then nothing of it is left on disk, and nothing runs it
    assert reply.ok
    assert not list(harness.hosts.data_dir.glob(f"{device.device_id}*"))
    assert host.host.owned_devices() == frozenset()


def test_a_network_failure_is_answered_with_its_kind(harness: Harness) -> None:
    # Given a pairing device whose next pair-code request fails on the network
    harness.hosts.start()
    device = harness.new_device()
    assert harness.send(CommandName.CONNECT, device).ok
    harness.network.inject_fault("pair_phone", "rate_limited", device_id=device.device_id)

    # When a pair code is asked
    reply = harness.send(CommandName.PAIR_PHONE, device, phone=PHONE)

    # Then the reply carries the network's failure kind, and the session keeps running
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.RATE_LIMITED)
    assert harness.send(CommandName.QR, device).ok


def test_an_expired_command_is_never_executed(harness: Harness) -> None:
    # Given a running host, and a connect whose deadline passed while it waited in the queue
    host = harness.hosts.start()
    device = harness.new_device()
    sqs = queues.sqs_client()
    reply_queue = sqs.create_queue(QueueName=f"test-host-replies-{uuid.uuid4().hex[:12]}")["QueueUrl"]
    command = Command(
        name=CommandName.CONNECT,
        tenant_id=device.tenant_id,
        device_id=device.device_id,
        deadline=time.time() - 1,
        args=NoArgs(),
        reply_to=reply_queue,
    )

    # When it arrives on the shared queue (followed by a live ping, to know the host read past it)
    sqs.send_message(QueueUrl=harness.command_queue, MessageBody=command.to_json())
    assert harness.send(CommandName.PING, device).ok

    # Then no session was opened, no reply was sent, and the message was deleted
    wait_until(lambda: harness.queue_is_empty(harness.command_queue), what="empty command queue")
    assert host.host.owned_devices() == frozenset()
    assert harness.network.connection_count(device.device_id) == 0
    assert device.record().wants_connection is False
    assert sqs.receive_message(QueueUrl=reply_queue, WaitTimeSeconds=1).get("Messages", []) == []
    sqs.delete_queue(QueueUrl=reply_queue)


@pytest.mark.parametrize(
    ("changed", "kind"),
    [
        ({"name": "teleport"}, "unsupported"),  # a command it does not know (a newer API, say)
        ({"v": 2}, "unsupported"),  # a wire version it does not read
        ({"name": "mark_read"}, "host_error"),  # arguments that are not the command's contract
    ],
)
def test_a_command_the_host_cannot_read_is_answered_not_misread(
    harness: Harness, changed: dict[str, Any], kind: str
) -> None:
    # Given a running host, and a command it cannot read
    harness.hosts.start()
    sqs = queues.sqs_client()
    reply_queue = sqs.create_queue(QueueName=f"test-host-replies-{uuid.uuid4().hex[:12]}")["QueueUrl"]
    body = {
        "v": 1,
        "name": "teleport",
        "tenant_id": "t1",
        "device_id": "d1",
        "deadline": time.time() + 10,
        "reply_to": reply_queue,
        "args": {"text": "words of the tenant"},
        "id": "command-1",
    } | changed

    # When it arrives on the shared queue
    with logged() as records:
        sqs.send_message(QueueUrl=harness.command_queue, MessageBody=json.dumps(body))

        # Then the sender gets a failure reply instead of waiting for its deadline
        messages = sqs.receive_message(QueueUrl=reply_queue, WaitTimeSeconds=10).get("Messages", [])
        reply = json.loads(messages[0]["Body"])
        assert (reply["command_id"], reply["ok"], reply["error_kind"]) == ("command-1", False, kind)
        wait_until(lambda: harness.queue_is_empty(harness.command_queue), what="empty command queue")
    # And the log names the command, never its arguments
    (refused,) = [r for r in records if r.getMessage() == "unreadable command refused"]
    assert (refused.command_id, refused.command) == ("command-1", body["name"])  # type: ignore[attr-defined]
    assert not [r for r in records if "words of the tenant" in said(r)]
    # And the host goes on: the next command is executed
    assert harness.send(CommandName.PING, harness.new_device()).ok
    sqs.delete_queue(QueueUrl=reply_queue)
