"""POST /messages/read end to end: HTTP → messages function → command bus → session host →
simulated network, where the sender's phone shows its message read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator, wait_for_status

from gateway.models import DeviceModel

pytestmark = pytest.mark.e2e

Envelope = Callable[..., dict[str, Any]]


@dataclass
class Received:
    """A connected device, and a message a contact sent it."""

    device_id: str
    contact_phone: str
    contact_jid: str
    message_id: str


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def mark_read(api: Any, token: str, body: Any, device_id: str | None = None) -> Any:
    headers = {"X-Device-Id": device_id} if device_id is not None else None
    return api.request("POST", "/messages/read", token, json=body, headers=headers)


def sent_status(api: Any, phone: str, message_id: str) -> str:
    """The receipt status the sender's phone shows for its message: sent, delivered or read."""
    sent = simulator(api, "GET", f"/accounts/{phone}/inbox")["sent"]
    (entry,) = [item for item in sent if item["message_id"] == message_id]
    return entry["status"]


def receive_message(api: Any, token: str, device_id: str) -> Received:
    """Pair the device, and have a new contact write to it; returns once it was delivered."""
    jid = pair_by_qr(api, token, device_id, new_phone())["messaging_jid"]
    contact_phone = new_phone()
    contact = simulator(api, "POST", "/accounts", phone=contact_phone)
    sent = simulator(api, "POST", f"/accounts/{contact_phone}/messages", to=jid, text="are you there?")
    assert sent_status(api, contact_phone, sent["message_id"]) == "delivered"
    return Received(device_id, contact_phone, contact["jid"], sent["message_id"])


def set_recorded_status(tenant_id: str, device_id: str, status: str) -> None:
    """Make the device record lag behind its session, as it does between an event and its write."""
    DeviceModel.get(tenant_id, device_id, consistent_read=True).update(
        actions=[DeviceModel.status.set(status)]
    )


def test_a_received_message_marked_read_shows_read_on_the_senders_phone(api: Any, tenant: Any) -> None:
    # Given a plain user whose only device received a message from a contact
    _, token = api.create_user(tenant, "user")
    received = receive_message(api, token, create_device(api, token))

    # When the user marks it as read, naming the chat by the contact's phone digits
    response = mark_read(
        api, token, {"chat_jid": received.contact_phone, "message_ids": [received.message_id]}
    )

    # Then the answer names the chat by its JID, and the contact's phone shows the message read
    assert response.status_code == 200, response.text
    assert response.json() == {
        "success": True,
        "chat_jid": received.contact_jid,
        "message_ids": [received.message_id],
    }
    assert sent_status(api, received.contact_phone, received.message_id) == "read"


def test_a_manager_marks_read_through_another_users_device_it_names(api: Any, tenant: Any) -> None:
    # Given a user's connected device that received a message, and a manager with no device
    _, user_token = api.create_user(tenant, "user")
    received = receive_message(api, user_token, create_device(api, user_token))
    _, manager_token = api.create_user(tenant, "manager")
    body = {"chat_jid": received.contact_jid, "message_ids": [received.message_id, received.message_id]}

    # When the manager marks the message read without naming the device, then naming it
    without = mark_read(api, manager_token, body)
    named = mark_read(api, manager_token, body, device_id=received.device_id)

    # Then only the named device is used (the manager owns none); the repeated id is sent once
    assert without.json()["error_code"] == "DEVICE_NOT_FOUND"
    assert named.status_code == 200, named.text
    assert named.json()["message_ids"] == [received.message_id]
    assert sent_status(api, received.contact_phone, received.message_id) == "read"


def test_a_device_that_is_not_logged_in_and_connected_is_not_ready(
    api: Any, tenant: Any, envelope: Envelope
) -> None:
    body = {"chat_jid": new_phone(), "message_ids": ["3EB0AA"]}
    token = tenant.admin_token
    device_id = create_device(api, token)

    # Given a device never connected: not_ready
    envelope(mark_read(api, token, body), 503, "DEVICE_NOT_READY")

    # Given its session started and showing a QR code: pairing
    assert api.request("POST", f"/devices/{device_id}/connect", token).status_code == 202
    wait_for_status(api, token, device_id, "pairing")
    envelope(mark_read(api, token, body), 503, "DEVICE_NOT_READY")

    # Given it paired and then logged out: logged_out
    simulator(api, "POST", f"/devices/{device_id}/scan", phone=new_phone())
    wait_for_status(api, token, device_id, "connected")
    assert api.request("POST", f"/devices/{device_id}/logout", token).status_code == 200
    envelope(mark_read(api, token, body), 503, "DEVICE_NOT_READY")


def test_a_disconnected_device_answers_device_disconnected(api: Any, tenant: Any, envelope: Envelope) -> None:
    # Given a device that received a message and was then disconnected
    received = receive_message(api, tenant.admin_token, create_device(api, tenant.admin_token))
    disconnect = api.request("POST", f"/devices/{received.device_id}/disconnect", tenant.admin_token)
    assert disconnect.status_code == 200, disconnect.text

    # When the message is marked read
    response = mark_read(
        api, tenant.admin_token, {"chat_jid": received.contact_jid, "message_ids": [received.message_id]}
    )

    # Then 503 DEVICE_DISCONNECTED, and the contact's phone still shows it only delivered
    body = envelope(response, 503, "DEVICE_DISCONNECTED")
    assert "reconnect" in body["error"]
    assert sent_status(api, received.contact_phone, received.message_id) == "delivered"


def test_a_record_behind_its_session_is_answered_from_the_session_host(
    api: Any, tenant: Any, envelope: Envelope
) -> None:
    # Given a running session whose connection was lost (and cannot come back yet), while its
    # record still says connected
    token = tenant.admin_token
    received = receive_message(api, token, create_device(api, token))
    device_id = received.device_id
    simulator(api, "POST", "/faults", device_id=device_id, operation="connect", error="network", count=50)
    simulator(api, "POST", f"/devices/{device_id}/drop")
    wait_for_status(api, token, device_id, "disconnected")
    set_recorded_status(tenant.id, device_id, "connected")
    body = {"chat_jid": received.contact_jid, "message_ids": [received.message_id]}

    # When the message is marked read
    # Then the session host's answer decides: DEVICE_DISCONNECTED
    envelope(mark_read(api, token, body), 503, "DEVICE_DISCONNECTED")

    # Given the device disconnected on purpose (no session runs it), its record again saying connected
    assert api.request("POST", f"/devices/{device_id}/disconnect", token).status_code == 200
    set_recorded_status(tenant.id, device_id, "connected")

    # Then no session runs it: DEVICE_NOT_READY, and the message was never marked read
    envelope(mark_read(api, token, body), 503, "DEVICE_NOT_READY")
    assert sent_status(api, received.contact_phone, received.message_id) == "delivered"


def test_the_device_of_the_request(api: Any, tenant: Any, envelope: Envelope) -> None:
    body = {"chat_jid": new_phone(), "message_ids": ["3EB0AA"]}
    _, token = api.create_user(tenant, "user")

    # Given a user without any device: 404 DEVICE_NOT_FOUND
    envelope(mark_read(api, token, body), 404, "DEVICE_NOT_FOUND")

    # Given the user has two devices and names neither: 400 DEVICE_ID_REQUIRED
    first = create_device(api, token)
    create_device(api, token)
    envelope(mark_read(api, token, body), 400, "DEVICE_ID_REQUIRED")

    # Given it names one of them (never connected): that device's own status answers
    envelope(mark_read(api, token, body, device_id=first), 503, "DEVICE_NOT_READY")

    # Given it names a device of the tenant's admin it cannot see, or an id nobody has: 404
    admins = create_device(api, tenant.admin_token)
    envelope(mark_read(api, token, body, device_id=admins), 404, "DEVICE_NOT_FOUND")
    envelope(mark_read(api, token, body, device_id="not-a-device"), 404, "DEVICE_NOT_FOUND")


def test_another_tenants_device_is_not_found_and_left_alone(api: Any, envelope: Envelope) -> None:
    # Given another tenant's connected device that received a message
    mine = api.register()
    other = api.register()
    received = receive_message(api, other.admin_token, create_device(api, other.admin_token))
    before = api.request("GET", f"/devices/{received.device_id}", other.admin_token).json()
    body = {"chat_jid": received.contact_jid, "message_ids": [received.message_id]}

    # When an admin of the first tenant names that device to mark the message read
    response = mark_read(api, mine.admin_token, body, device_id=received.device_id)

    # Then 404 DEVICE_NOT_FOUND, as for a device nobody has, and nothing was read or changed
    envelope(response, 404, "DEVICE_NOT_FOUND")
    assert received.device_id not in response.text
    assert sent_status(api, received.contact_phone, received.message_id) == "delivered"
    assert api.request("GET", f"/devices/{received.device_id}", other.admin_token).json() == before


GROUP = "120363000000000001@g.us"


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({}, "MISSING_REQUIRED_FIELDS", None),
        ({"chat_jid": "", "message_ids": ["3EB0AA"]}, "MISSING_REQUIRED_FIELDS", "chat_jid"),
        ({"chat_jid": "   ", "message_ids": ["3EB0AA"]}, "MISSING_REQUIRED_FIELDS", "chat_jid"),
        ({"chat_jid": "4915112345678", "message_ids": []}, "MISSING_REQUIRED_FIELDS", "message_ids"),
        ({"chat_jid": None, "message_ids": None}, "MISSING_REQUIRED_FIELDS", None),
        ({"chat_jid": "someone", "message_ids": ["3EB0AA"]}, "INVALID_CHAT_JID", None),
        ({"chat_jid": "+4915112345678", "message_ids": ["3EB0AA"]}, "INVALID_CHAT_JID", None),
        ({"chat_jid": "4915112345678@example.com", "message_ids": ["3EB0AA"]}, "INVALID_CHAT_JID", None),
        ({"chat_jid": "123@s.whatsapp.net", "message_ids": ["3EB0AA"]}, "INVALID_CHAT_JID", None),
        ({"chat_jid": " 4915112345678 ", "message_ids": ["3EB0AA"]}, "INVALID_CHAT_JID", None),
        ({"chat_jid": "015112345678", "message_ids": ["3EB0AA"]}, "INVALID_CHAT_JID", None),
        ({"chat_jid": "4915112345678:3@s.whatsapp.net", "message_ids": ["3EB0AA"]}, "INVALID_CHAT_JID", None),
        (
            {"chat_jid": GROUP, "message_ids": ["3EB0AA"], "sender_jid": "+4915112345678"},
            "VALIDATION_ERROR",
            "sender_jid",
        ),
        ({"chat_jid": GROUP, "message_ids": ["3EB0AA"]}, "VALIDATION_ERROR", "sender_jid"),
        (
            {"chat_jid": GROUP, "message_ids": ["3EB0AA"], "sender_jid": GROUP},
            "VALIDATION_ERROR",
            "sender_jid",
        ),
        (
            {"chat_jid": "4915112345678", "message_ids": [f"ID{i}" for i in range(101)]},
            "VALIDATION_ERROR",
            None,
        ),
        ({"chat_jid": "4915112345678", "message_ids": ["x" * 129]}, "VALIDATION_ERROR", None),
        ({"chat_jid": "4915112345678", "message_ids": [""]}, "VALIDATION_ERROR", None),
        ({"chat_jid": "4915112345678", "message_ids": "3EB0AA"}, "VALIDATION_ERROR", "message_ids"),
        ({"chat_jid": 4915112345678, "message_ids": ["3EB0AA"]}, "VALIDATION_ERROR", "chat_jid"),
    ],
    ids=[
        "empty body",
        "empty chat",
        "blank chat",
        "no ids",
        "nulls",
        "chat not a jid",
        "phone with plus",
        "unknown server",
        "phone too short",
        "phone with spaces around",
        "phone without country code",
        "device of an account",
        "sender with plus",
        "group without sender",
        "group as sender",
        "101 ids",
        "id too long",
        "empty id",
        "ids not a list",
        "chat not a string",
    ],
)
def test_bad_input_is_refused_before_the_devices_status(
    api: Any, tenant: Any, envelope: Envelope, body: dict[str, Any], code: str, field: str | None
) -> None:
    # Given a caller whose only device was never connected
    create_device(api, tenant.admin_token)

    # When it sends a body that cannot be served
    response = mark_read(api, tenant.admin_token, body)

    # Then 400 with the input's error code (not the device's 503), naming the field when one is at fault
    error = envelope(response, 400, code)
    if field is not None:
        assert field in [item["field"] for item in error["validation"]], error


def test_a_network_failure_is_502_and_a_retry_succeeds(api: Any, tenant: Any, envelope: Envelope) -> None:
    # Given a connected device that received a message, and a network that fails its next receipt
    received = receive_message(api, tenant.admin_token, create_device(api, tenant.admin_token))
    simulator(api, "POST", "/faults", device_id=received.device_id, operation="mark_read", error="network")
    body = {"chat_jid": received.contact_jid, "message_ids": [received.message_id]}

    # When the message is marked read, then marked read again
    failed = mark_read(api, tenant.admin_token, body)
    retried = mark_read(api, tenant.admin_token, body)

    # Then the first is 502 NETWORK_ERROR and the retry goes through
    envelope(failed, 502, "NETWORK_ERROR")
    assert retried.status_code == 200, retried.text
    assert sent_status(api, received.contact_phone, received.message_id) == "read"


def test_a_group_chat_passes_its_sender_to_the_network(api: Any, tenant: Any, envelope: Envelope) -> None:
    # Given a connected device
    received = receive_message(api, tenant.admin_token, create_device(api, tenant.admin_token))

    # When it marks messages read in a group the network does not know, naming their sender
    body = {"chat_jid": GROUP, "sender_jid": received.contact_phone, "message_ids": ["3EB0AA"]}
    response = mark_read(api, tenant.admin_token, body)

    # Then the network's answer comes back: 404 NOT_FOUND (nothing happened to the device)
    envelope(response, 404, "NOT_FOUND")
    device = api.request("GET", f"/devices/{received.device_id}", tenant.admin_token).json()["device"]
    assert device["status"] == "connected"
