"""DELETE /messages/{message_id} and POST /history/sync end to end: HTTP → messages function →
command bus → session host (its record of sent messages, the send outbox) → simulated network,
where the recipient's phone shows a message revoked; the webhook receives what is emitted."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator

from gateway.messages import outbox

pytestmark = pytest.mark.e2e

Envelope = Callable[..., dict[str, Any]]


@dataclass
class Sent:
    """A connected device of a tenant, and a message it sent to a contact."""

    tenant_id: str
    token: str
    device_id: str
    contact_phone: str
    contact_jid: str
    message_id: str  # the gateway's
    network_message_id: str


def send_text(api: Any, token: str, device_id: str, phone: str, text: str) -> tuple[str, str]:
    """POST /send/text to ``phone``: the gateway's id of the message, and the network's (as
    the recipient's phone shows it)."""
    body = {"number": phone, "text": text, "disablePresence": True}
    response = api.request("POST", "/send/text", token, json=body, headers={"X-Device-Id": device_id})
    assert response.status_code == 200, response.text
    inbox = simulator(api, "GET", f"/accounts/{phone}/inbox")["messages"]
    (received,) = [message for message in inbox if message["text"] == text]
    return response.json()["message_id"], received["message_id"]


@pytest.fixture
def sent(api: Any) -> Sent:
    """A tenant's paired device that sent a message to a new contact."""
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    contact_phone = new_phone()
    contact = simulator(api, "POST", "/accounts", phone=contact_phone)
    message_id, network_message_id = send_text(
        api, tenant.admin_token, device_id, contact_phone, "see you at 5"
    )
    return Sent(
        tenant.id,
        tenant.admin_token,
        device_id,
        contact_phone,
        contact["jid"],
        message_id,
        network_message_id,
    )


@pytest.fixture
def short_revoke_window(stack: Any) -> Iterator[Callable[[float], None]]:
    """``short_revoke_window(seconds)``: the simulated network's window for the rest of the test
    (what ``SIMULATOR_REVOKE_WINDOW_SECONDS`` sets when the network starts)."""
    network = stack.network
    saved = network.revoke_window

    def set_window(seconds: float) -> None:
        network.revoke_window = seconds

    yield set_window
    network.revoke_window = saved


def delete(api: Any, token: str, message_id: str, body: Any, device_id: str | None = None) -> Any:
    headers = {"X-Device-Id": device_id} if device_id is not None else None
    return api.request("DELETE", f"/messages/{message_id}", token, json=body, headers=headers)


def sync(api: Any, token: str, body: Any, device_id: str | None = None) -> Any:
    headers = {"X-Device-Id": device_id} if device_id is not None else None
    return api.request("POST", "/history/sync", token, json=body, headers=headers)


def inbox_entry(api: Any, phone: str, network_message_id: str) -> dict[str, Any]:
    """The message as the recipient's phone shows it."""
    messages = simulator(api, "GET", f"/accounts/{phone}/inbox")["messages"]
    (entry,) = [m for m in messages if m["message_id"] == network_message_id]
    return entry


def test_delete_for_everyone_revokes_it_on_the_recipients_phone(
    api: Any, sent: Sent, envelope: Envelope
) -> None:
    # Given a message the device sent a moment ago, shown on the contact's phone
    assert inbox_entry(api, sent.contact_phone, sent.network_message_id).get("revoked") is not True

    # When it is deleted for everyone by the id POST /send/text answered, naming the chat by digits
    response = delete(
        api, sent.token, sent.message_id, {"chat_jid": sent.contact_phone, "for_everyone": True}
    )

    # Then 200 with both ids, and the contact's phone shows it revoked, its text gone
    assert response.status_code == 200, response.text
    assert response.json() == {
        "success": True,
        "message_id": sent.message_id,
        "gateway_message_id": sent.message_id,
        "network_message_id": sent.network_message_id,
        "chat_jid": sent.contact_jid,
        "for_everyone": True,
    }
    entry = inbox_entry(api, sent.contact_phone, sent.network_message_id)
    assert entry["revoked"] is True
    assert entry["text"] is None

    # And deleting it for everyone again (by the network's id): already deleted
    again = delete(
        api, sent.token, sent.network_message_id, {"chat_jid": sent.contact_jid, "for_everyone": True}
    )
    envelope(again, 404, "MESSAGE_NOT_FOUND")


def test_past_the_window_only_delete_for_me_remains(
    api: Any, sent: Sent, envelope: Envelope, short_revoke_window: Callable[[float], None]
) -> None:
    # Given a network whose window to delete for everyone has passed for the message
    short_revoke_window(0.0)
    body = {"chat_jid": sent.contact_jid, "for_everyone": True}

    # When it is deleted for everyone
    # Then 400 DELETE_TIME_EXPIRED, and the contact still sees it
    envelope(delete(api, sent.token, sent.message_id, body), 400, "DELETE_TIME_EXPIRED")
    assert inbox_entry(api, sent.contact_phone, sent.network_message_id)["text"] == "see you at 5"

    # And deleting it for me still works
    for_me = delete(api, sent.token, sent.message_id, {"chat_jid": sent.contact_jid})
    assert for_me.status_code == 200, for_me.text
    assert for_me.json()["for_everyone"] is False


def test_delete_for_me_reaches_the_webhook(api: Any, sent: Sent, events: Any, envelope: Envelope) -> None:
    # Given the device's events go to a webhook receiver
    events.subscribe(api, sent.token, sent.device_id)

    # When the message is deleted for me (for_everyone left out)
    response = delete(api, sent.token, sent.network_message_id, {"chat_jid": sent.contact_jid})

    # Then 200, message.delete_for_me arrives naming both ids, and the contact's phone keeps it
    assert response.status_code == 200, response.text
    (event,) = events.wait_for(sent.device_id, "message.delete_for_me")
    data = event["data"]
    assert data["message_id"] == sent.network_message_id
    assert data["gateway_message_id"] == sent.message_id
    assert (data["chat_jid"], data["is_from_me"], data["delete_media"]) == (sent.contact_jid, True, False)
    assert data["sender"].endswith("@s.whatsapp.net")
    assert inbox_entry(api, sent.contact_phone, sent.network_message_id)["text"] == "see you at 5"

    # And the message is gone from the device's view: any further delete is not found
    for everyone in (True, False):
        body = {"chat_jid": sent.contact_jid, "for_everyone": everyone}
        envelope(delete(api, sent.token, sent.message_id, body), 404, "MESSAGE_NOT_FOUND")


def test_unknown_ids_other_chats_and_received_messages_are_not_found(
    api: Any, sent: Sent, envelope: Envelope
) -> None:
    # Given a message a contact sent to the device (received, not sent by the gateway)
    device = api.request("GET", f"/devices/{sent.device_id}", sent.token).json()["device"]
    received = simulator(
        api, "POST", f"/accounts/{sent.contact_phone}/messages", to=device["messaging_jid"], text="hi"
    )
    cases = [
        ("3EB0UNKNOWN", sent.contact_jid),
        (sent.message_id, new_phone()),  # its id, in another chat
        (received["message_id"], sent.contact_jid),
    ]
    for message_id, chat in cases:
        for everyone in (True, False):
            body = {"chat_jid": chat, "for_everyone": everyone}
            envelope(delete(api, sent.token, message_id, body), 404, "MESSAGE_NOT_FOUND")
    assert inbox_entry(api, sent.contact_phone, sent.network_message_id).get("revoked") is not True


def test_a_network_failure_is_delete_failed_and_can_be_retried(
    api: Any, sent: Sent, envelope: Envelope
) -> None:
    body = {"chat_jid": sent.contact_jid, "for_everyone": True}
    for operation, for_everyone in (("revoke_message", True), ("delete_for_me", False)):
        # Given the network fails the device's next such operation
        simulator(api, "POST", "/faults", device_id=sent.device_id, operation=operation, error="network")
        # Then 500 DELETE_FAILED, and nothing changed
        body = {"chat_jid": sent.contact_jid, "for_everyone": for_everyone}
        envelope(delete(api, sent.token, sent.message_id, body), 500, "DELETE_FAILED")
    assert inbox_entry(api, sent.contact_phone, sent.network_message_id).get("revoked") is not True
    # And once the network is well, the same delete succeeds
    retried = delete(api, sent.token, sent.message_id, {"chat_jid": sent.contact_jid, "for_everyone": True})
    assert retried.status_code == 200, retried.text


def test_invalid_requests_are_refused_before_anything_is_asked(
    api: Any, sent: Sent, envelope: Envelope
) -> None:
    envelope(delete(api, sent.token, sent.message_id, {}), 400, "MISSING_REQUIRED_FIELDS")
    envelope(delete(api, sent.token, sent.message_id, {"chat_jid": "  "}), 400, "MISSING_REQUIRED_FIELDS")
    envelope(delete(api, sent.token, sent.message_id, {"chat_jid": "not a jid"}), 400, "INVALID_CHAT_JID")
    bad_flag = {"chat_jid": sent.contact_jid, "for_everyone": "yes"}
    envelope(delete(api, sent.token, sent.message_id, bad_flag), 400, "VALIDATION_ERROR")
    envelope(delete(api, sent.token, "X" * 129, {"chat_jid": sent.contact_jid}), 400, "VALIDATION_ERROR")
    envelope(sync(api, sent.token, {"chat_jid": sent.contact_jid}), 400, "MISSING_REQUIRED_FIELDS")
    envelope(sync(api, sent.token, {"chat_jid": "nobody", "count": 5}), 400, "INVALID_CHAT_JID")
    for count in (0, 51, "5", True):
        envelope(
            sync(api, sent.token, {"chat_jid": sent.contact_jid, "count": count}), 400, "VALIDATION_ERROR"
        )
    assert inbox_entry(api, sent.contact_phone, sent.network_message_id).get("revoked") is not True


def test_history_sync_is_answered_by_a_history_sync_event(
    api: Any, sent: Sent, events: Any, envelope: Envelope
) -> None:
    # Given the device's events go to a webhook receiver
    events.subscribe(api, sent.token, sent.device_id)

    # When the device asks its phone for the chat's latest messages
    response = sync(api, sent.token, {"chat_jid": sent.contact_phone, "count": 10})

    # Then 200 at once, and the phone's answer arrives as history.sync (on demand) counting the sent one
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "chat_jid": sent.contact_jid, "count": 10}
    (event,) = events.wait_for(sent.device_id, "history.sync")
    assert event["data"]["sync_type"] == "on_demand"
    assert event["data"]["message_count"] == 1

    # And a network failure is 502 SYNC_REQUEST_FAILED
    simulator(
        api, "POST", "/faults", device_id=sent.device_id, operation="request_history_sync", error="network"
    )
    envelope(sync(api, sent.token, {"chat_jid": sent.contact_jid, "count": 10}), 502, "SYNC_REQUEST_FAILED")


def test_a_device_without_a_session_is_not_ready_but_unknown_ids_are_known_at_once(
    api: Any, envelope: Envelope
) -> None:
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    chat = new_phone()
    envelope(delete(api, tenant.admin_token, "3EB0AA", {"chat_jid": chat}), 404, "MESSAGE_NOT_FOUND")
    envelope(sync(api, tenant.admin_token, {"chat_jid": chat, "count": 5}), 503, "DEVICE_NOT_READY")
    # A message it sent before it was disconnected cannot be deleted while it is not connected
    send = outbox.new_send(tenant.id, device_id, chat_jid=f"{chat}@s.whatsapp.net", text="x")
    outbox.store(send)
    assert outbox.claim(send, 1)
    assert outbox.mark_sent(send, 1, "NETOLD", 1.0)
    envelope(delete(api, tenant.admin_token, "NETOLD", {"chat_jid": chat}), 503, "DEVICE_NOT_READY")


def test_another_tenant_cannot_delete_or_sync_through_the_device(
    api: Any, sent: Sent, envelope: Envelope
) -> None:
    # Given an admin of another tenant, with a device of its own
    other = api.register()
    create_device(api, other.admin_token)
    body = {"chat_jid": sent.contact_jid, "for_everyone": True}

    # When it names the first tenant's device, or uses the message's ids through its own device
    # Then 404, as for a device or a message nobody has, and the message is untouched
    envelope(delete(api, other.admin_token, sent.message_id, body, sent.device_id), 404, "DEVICE_NOT_FOUND")
    envelope(delete(api, other.admin_token, sent.message_id, body), 404, "MESSAGE_NOT_FOUND")
    envelope(delete(api, other.admin_token, sent.network_message_id, body), 404, "MESSAGE_NOT_FOUND")
    sync_body = {"chat_jid": sent.contact_jid, "count": 5}
    envelope(sync(api, other.admin_token, sync_body, sent.device_id), 404, "DEVICE_NOT_FOUND")
    assert inbox_entry(api, sent.contact_phone, sent.network_message_id).get("revoked") is not True
