"""The simulator control API over HTTP, on the gateway's app factory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fakes_control_groups import MASTER
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, LoopThread
from fastapi.testclient import TestClient
from recording_sink import RecordingSink

from gateway import jids
from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError, SessionState
from session_host.network.simulated import SimulatedNetwork, SimulatedPort, SimulatedSession


@pytest.fixture
def network() -> SimulatedNetwork:
    return SimulatedNetwork(qr_lifetimes=(5.0,), reconnect_delay=0.05, timeout_fault_delay=0.05)


@pytest.fixture
def host() -> Iterator[LoopThread]:
    with LoopThread() as loop_thread:
        yield loop_thread


def start_session(
    network: SimulatedNetwork, host: LoopThread, data_dir: Path, device_id: str = "dev-1"
) -> tuple[SimulatedSession, RecordingSink]:
    recorder = RecordingSink()
    session = SimulatedPort(network).open_session(device_id, data_dir=data_dir, sink=recorder)
    host.run(session.connect())
    host.run(recorder.wait_for("qr.generated"))
    return session, recorder


def assert_envelope(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["success"] is False
    assert body["error_code"] == code
    assert body["timestamp"].endswith("Z")


def test_every_route_needs_the_master_token(client: TestClient) -> None:
    # Given no master token, When each route is called, Then each answers 401 before anything else
    calls = [
        ("POST", "/_simulator/accounts", {"phone": CONTACT}),
        ("POST", "/_simulator/devices/dev-1/scan", {"phone": PHONE}),
        ("POST", "/_simulator/pair-code", {"phone": PHONE, "code": "ABCD-1234"}),
        ("POST", f"/_simulator/accounts/{CONTACT}/messages", {"to": JID, "text": "hi"}),
        ("POST", f"/_simulator/accounts/{CONTACT}/read", {"chat": JID, "message_ids": ["x"]}),
        ("GET", f"/_simulator/accounts/{CONTACT}/inbox", None),
        ("POST", f"/_simulator/accounts/{CONTACT}/contacts", {"phones": [PHONE]}),
        ("GET", f"/_simulator/accounts/{CONTACT}/contacts", None),
        ("POST", f"/_simulator/accounts/{CONTACT}/name", {"name": "Bob"}),
        ("POST", f"/_simulator/accounts/{CONTACT}/typing", {"to": JID, "state": "composing"}),
        ("POST", f"/_simulator/accounts/{CONTACT}/presence", {"to": JID, "available": True}),
        ("POST", f"/_simulator/accounts/{CONTACT}/calls", {"to": JID}),
        ("POST", f"/_simulator/accounts/{CONTACT}/calls/ABC/terminate", None),
        ("POST", "/_simulator/devices/dev-1/drop", None),
        ("POST", "/_simulator/devices/dev-1/unlink", None),
        ("POST", "/_simulator/faults", {"operation": "send_text", "error": "network"}),
        ("PUT", "/_simulator/devices/dev-1/new_chat_cap", {"limit": 1, "lock_seconds": 60}),
        ("GET", "/_simulator/devices/dev-1/new_chat_cap", None),
        ("DELETE", "/_simulator/devices/dev-1/new_chat_cap", None),
    ]
    for method, path, body in calls:
        response = client.request(method, path, json=body)
        assert response.status_code == 401, path
        assert response.json() == {"success": False, "error": "master token required"}


def test_create_accounts(client: TestClient) -> None:
    # Given the control API, When a contact is created
    created = client.post("/_simulator/accounts", json={"phone": CONTACT, "name": "Bob"}, headers=MASTER)

    # Then it is 201 with its JID, and again is a conflict
    assert created.status_code == 201
    body = created.json()
    assert body == {"success": True, "jid": CONTACT_JID, "lid": body["lid"], "phone": CONTACT, "name": "Bob"}
    assert jids.is_lid(body["lid"])
    assert body["lid"].removesuffix("@lid").isdigit()
    again = client.post("/_simulator/accounts", json={"phone": CONTACT}, headers=MASTER)
    assert_envelope(again, 409, "ACCOUNT_EXISTS")

    # And a phone that is not a plain phone number (gateway.jids) fails validation
    for phone in ("123", "1234567890123456", "+15550002222", "05550002222", " 15550002222", "١٥٥٥٠٠٠٢٢٢٢"):
        bad = client.post("/_simulator/accounts", json={"phone": phone}, headers=MASTER)
        assert_envelope(bad, 400, "VALIDATION_ERROR")
        assert bad.json()["validation"][0]["field"] == "phone"


def test_scan_pairs_the_device_showing_a_qr(
    client: TestClient, network: SimulatedNetwork, host: LoopThread, tmp_path: Path
) -> None:
    # Given no device showing a QR, When a phone scans, Then the device is not found
    assert_envelope(
        client.post("/_simulator/devices/dev-1/scan", json={"phone": PHONE}, headers=MASTER),
        404,
        "DEVICE_NOT_FOUND",
    )

    # Given a session showing a QR code
    session, recorder = start_session(network, host, tmp_path)

    # When a phone (without an account yet) scans it
    scanned = client.post("/_simulator/devices/dev-1/scan", json={"phone": PHONE}, headers=MASTER)

    # Then the device pairs as that account, created on the way
    assert scanned.status_code == 200
    assert scanned.json() == {"success": True, "jid": JID}
    host.run(recorder.wait_for("device.connected"))
    assert session.state is SessionState.CONNECTED
    assert client.get(f"/_simulator/accounts/{PHONE}/inbox", headers=MASTER).status_code == 200

    # And scanning it again is a conflict
    again = client.post("/_simulator/devices/dev-1/scan", json={"phone": PHONE}, headers=MASTER)
    assert_envelope(again, 409, "ALREADY_LOGGED_IN")
    host.run(session.close())


def test_pair_code(client: TestClient, network: SimulatedNetwork, host: LoopThread, tmp_path: Path) -> None:
    # Given a session that showed a pair code for a phone
    session, recorder = start_session(network, host, tmp_path)
    code = host.run(session.pair_phone(PHONE))

    # When a wrong code is entered, Then it is not found
    wrong = client.post("/_simulator/pair-code", json={"phone": PHONE, "code": "ZZZZ-ZZZZ"}, headers=MASTER)
    assert_envelope(wrong, 404, "PAIR_CODE_NOT_FOUND")
    malformed = client.post("/_simulator/pair-code", json={"phone": PHONE, "code": "nope"}, headers=MASTER)
    assert_envelope(malformed, 400, "VALIDATION_ERROR")

    # When the phone enters the right code, Then the device pairs
    entered = client.post("/_simulator/pair-code", json={"phone": PHONE, "code": code}, headers=MASTER)
    assert entered.json() == {"success": True, "jid": JID}
    host.run(recorder.wait_for("device.connected"))
    host.run(session.close())


def test_messages_read_and_inbox(
    client: TestClient, network: SimulatedNetwork, host: LoopThread, tmp_path: Path
) -> None:
    # Given a paired device and a contact
    session, recorder = start_session(network, host, tmp_path)
    client.post("/_simulator/devices/dev-1/scan", json={"phone": PHONE}, headers=MASTER)
    host.run(recorder.wait_for("device.connected"))
    client.post("/_simulator/accounts", json={"phone": CONTACT, "name": "Bob"}, headers=MASTER)

    # When the contact sends the device a text
    sent = client.post(
        f"/_simulator/accounts/{CONTACT}/messages", json={"to": JID, "text": "hi"}, headers=MASTER
    )

    # Then the device receives it with the network's id
    assert sent.status_code == 200
    message_id = sent.json()["message_id"]
    received = host.run(recorder.wait_for("message.received"))
    assert received.data["message_id"] == message_id
    assert received.data["push_name"] == "Bob"

    # When the device answers and the contact reads the answer
    reply = host.run(session.sending.send_text(CONTACT_JID, "hello Bob"))
    read = client.post(
        f"/_simulator/accounts/{CONTACT}/read",
        json={"chat": JID, "message_ids": [reply.message_id]},
        headers=MASTER,
    )

    # Then the read receipt reaches the device and the inbox shows everything
    assert read.json() == {"success": True, "message_ids": [reply.message_id]}
    host.run(recorder.wait_for("message.read"))
    inbox = client.get(f"/_simulator/accounts/{CONTACT}/inbox", headers=MASTER).json()
    assert inbox["success"] is True
    assert [m["text"] for m in inbox["messages"]] == ["hello Bob"]
    assert inbox["messages"][0]["read"] is True
    assert inbox["presence"] == []
    assert inbox["statuses"] == []
    assert inbox["sent"][0]["message_id"] == message_id

    # And mistakes get the standard envelope
    cases = [
        (
            f"/_simulator/accounts/{CONTACT}/read",
            {"chat": JID, "message_ids": ["3EB0NOPE"]},
            404,
            "MESSAGE_NOT_FOUND",
        ),
        (f"/_simulator/accounts/{CONTACT}/read", {"chat": JID, "message_ids": []}, 400, "VALIDATION_ERROR"),
        ("/_simulator/accounts/19990000000/messages", {"to": JID, "text": "x"}, 404, "ACCOUNT_NOT_FOUND"),
        (
            f"/_simulator/accounts/{CONTACT}/messages",
            {"to": "19990000000", "text": "x"},
            404,
            "RECIPIENT_NOT_FOUND",
        ),
        (
            f"/_simulator/accounts/{CONTACT}/messages",
            {"to": "bob@example", "text": "x"},
            400,
            "INVALID_CHAT_JID",
        ),
        (f"/_simulator/accounts/{CONTACT}/messages", {"to": JID, "text": ""}, 400, "VALIDATION_ERROR"),
        ("/_simulator/accounts/12/messages", {"to": JID, "text": "x"}, 400, "VALIDATION_ERROR"),
    ]
    for path, body, status, code in cases:
        assert_envelope(client.post(path, json=body, headers=MASTER), status, code)
    assert_envelope(
        client.get("/_simulator/accounts/19990000000/inbox", headers=MASTER), 404, "ACCOUNT_NOT_FOUND"
    )
    host.run(session.close())


def test_drop_and_faults(
    client: TestClient, network: SimulatedNetwork, host: LoopThread, tmp_path: Path
) -> None:
    # Given a paired, connected device
    session, recorder = start_session(network, host, tmp_path)
    client.post("/_simulator/devices/dev-1/scan", json={"phone": PHONE}, headers=MASTER)
    host.run(recorder.wait_for("device.connected"))

    # When the network drops it, Then it disconnects and reconnects by itself
    dropped = client.post("/_simulator/devices/dev-1/drop", headers=MASTER)
    assert dropped.json() == {"success": True, "device_id": "dev-1"}
    host.run(recorder.wait_for("device.disconnected"))
    host.run(recorder.wait_for("device.connected", 2))
    assert_envelope(client.post("/_simulator/devices/unknown/drop", headers=MASTER), 404, "DEVICE_NOT_FOUND")

    # When a fault is injected for its sends
    fault = client.post(
        "/_simulator/faults",
        json={"device_id": "dev-1", "operation": "send_text", "error": "rate_limited", "count": 1},
        headers=MASTER,
    )

    # Then the next send fails that way and the one after goes through
    assert fault.json() == {
        "success": True,
        "device_id": "dev-1",
        "operation": "send_text",
        "error": "rate_limited",
        "count": 1,
        "retry_after_seconds": None,
    }
    network.create_account(CONTACT)
    with pytest.raises(NetworkError) as failed:
        host.run(session.sending.send_text(CONTACT_JID, "hi"))
    assert failed.value.kind is ErrorKind.RATE_LIMITED
    host.run(session.sending.send_text(CONTACT_JID, "hi"))

    # And unknown operations, errors and counts fail validation
    for body in (
        {"operation": "explode", "error": "network"},
        {"operation": "send_text", "error": "gremlins"},
        {"operation": "send_text", "error": "network", "count": 0},
    ):
        assert_envelope(client.post("/_simulator/faults", json=body, headers=MASTER), 400, "VALIDATION_ERROR")
    host.run(session.close())


def test_unlink_removes_a_device_from_the_phone(
    client: TestClient, network: SimulatedNetwork, host: LoopThread, tmp_path: Path
) -> None:
    # Given a paired device that logged out while offline, so the phone still lists it
    session, recorder = start_session(network, host, tmp_path)
    client.post("/_simulator/devices/dev-1/scan", json={"phone": PHONE}, headers=MASTER)
    host.run(recorder.wait_for("device.connected"))
    host.run(session.disconnect())
    host.run(session.logout())
    assert network.linked_jid("dev-1") == JID

    # When the phone removes it from its linked devices
    unlinked = client.post("/_simulator/devices/dev-1/unlink", headers=MASTER)

    # Then the network forgets the link, and a second removal finds nothing
    assert unlinked.json() == {"success": True, "device_id": "dev-1"}
    assert network.linked_jid("dev-1") is None
    assert_envelope(client.post("/_simulator/devices/dev-1/unlink", headers=MASTER), 404, "DEVICE_NOT_FOUND")
    host.run(session.close())


def test_contacts_type_show_presence_rename_and_call(
    client: TestClient, network: SimulatedNetwork, host: LoopThread, tmp_path: Path
) -> None:
    # Given a paired device and a contact
    session, recorder = start_session(network, host, tmp_path)
    client.post("/_simulator/devices/dev-1/scan", json={"phone": PHONE}, headers=MASTER)
    host.run(recorder.wait_for("device.connected"))
    client.post("/_simulator/accounts", json={"phone": CONTACT, "name": "Bob"}, headers=MASTER)
    base = f"/_simulator/accounts/{CONTACT}"

    # When the contact types, comes online, renames itself and calls the device, then hangs up
    typing = client.post(f"{base}/typing", json={"to": PHONE, "state": "composing"}, headers=MASTER)
    online = client.post(f"{base}/presence", json={"to": JID, "available": True}, headers=MASTER)
    renamed = client.post(f"{base}/name", json={"name": "Robert"}, headers=MASTER)
    called = client.post(f"{base}/calls", json={"to": JID, "video": True}, headers=MASTER)
    call_id = called.json()["call_id"]
    ended = client.post(f"{base}/calls/{call_id}/terminate", json={"reason": "timeout"}, headers=MASTER)

    # Then each answers what it did, and the device saw each
    assert typing.json() == {"success": True, "to": PHONE, "state": "composing"}
    assert online.json() == {"success": True, "to": JID, "available": True}
    assert renamed.json() == {"success": True, "jid": CONTACT_JID, "phone": CONTACT, "name": "Robert"}
    assert called.status_code == 201
    assert ended.json() == {"success": True, "call_id": call_id}
    for name in ("chat.presence", "contact.presence", "call.offer", "call.terminate"):
        host.run(recorder.wait_for(name))
    assert host.run(recorder.wait_for("call.offer")).data["is_video"] is True
    assert host.run(recorder.wait_for("call.terminate")).data["reason"] == "timeout"

    # And a call ended without a body has no reason
    again = client.post(f"{base}/calls", json={"to": JID}, headers=MASTER).json()["call_id"]
    assert client.post(f"{base}/calls/{again}/terminate", headers=MASTER).status_code == 200
    assert host.run(recorder.wait_for("call.terminate", 2)).data["reason"] is None

    # And mistakes get the standard envelope
    cases = [
        (f"{base}/calls/{call_id}/terminate", None, 404, "CALL_NOT_FOUND"),
        (f"{base}/calls", {"to": "19990000000"}, 404, "RECIPIENT_NOT_FOUND"),
        ("/_simulator/accounts/19990000000/calls", {"to": JID}, 404, "ACCOUNT_NOT_FOUND"),
        (f"{base}/typing", {"to": JID, "state": "recording"}, 400, "VALIDATION_ERROR"),
        (f"{base}/presence", {"to": "bob@example", "available": True}, 400, "INVALID_CHAT_JID"),
        (f"{base}/presence", {"to": JID}, 400, "VALIDATION_ERROR"),
        (f"{base}/name", {"name": "  "}, 400, "VALIDATION_ERROR"),
        (f"{base}/calls/{again}/terminate", {"reason": "Hung Up!"}, 400, "VALIDATION_ERROR"),
    ]
    for path, body, status, code in cases:
        assert_envelope(client.post(path, json=body, headers=MASTER), status, code)
    host.run(session.close())
