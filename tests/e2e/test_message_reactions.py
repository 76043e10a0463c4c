"""Reactions, edits and the ids a client correlates, end to end: HTTP → messages function →
command bus → session host → simulated network, where the contact's phone shows what the
device did; what the contact does reaches the webhook (``message.reaction``,
``message.edited``), and receipts name the gateway's ids of the device's sends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator
from waiting import wait_until

pytestmark = pytest.mark.e2e

Envelope = Callable[..., dict[str, Any]]


@dataclass
class Chat:
    """A connected device of a tenant, a contact, and a text the device sent the contact."""

    token: str
    device_id: str
    device_jid: str
    contact_phone: str
    contact_jid: str
    message_id: str  # the gateway's
    network_message_id: str  # as the 200 answered it


def request(api: Any, chat: Chat, method: str, path: str, body: Any) -> Any:
    return api.request(method, path, chat.token, json=body, headers={"X-Device-Id": chat.device_id})


def inbox(api: Any, phone: str) -> dict[str, Any]:
    return simulator(api, "GET", f"/accounts/{phone}/inbox")


@pytest.fixture
def chat(api: Any) -> Chat:
    """A tenant's paired device that sent a text to a new contact."""
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    device = pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    contact_phone = new_phone()
    contact = simulator(api, "POST", "/accounts", phone=contact_phone)
    body = {"number": contact_phone, "text": "see you at 5", "disablePresence": True}
    sent = api.request(
        "POST", "/send/text", tenant.admin_token, json=body, headers={"X-Device-Id": device_id}
    )
    assert sent.status_code == 200, sent.text
    answer = sent.json()
    return Chat(
        tenant.admin_token,
        device_id,
        device["messaging_jid"],
        contact_phone,
        contact["jid"],
        answer["message_id"],
        answer["network_message_id"],
    )


@pytest.fixture
def short_edit_window(stack: Any) -> Iterator[Callable[[float], None]]:
    """``short_edit_window(seconds)``: the simulated network's edit window for the rest of the
    test (what ``SIMULATOR_EDIT_WINDOW_SECONDS`` sets when the network starts)."""
    network = stack.network
    saved = network.edit_window

    def set_window(seconds: float) -> None:
        network.edit_window = seconds

    yield set_window
    network.edit_window = saved


def test_the_sent_answer_names_the_networks_id(api: Any, chat: Chat) -> None:
    # Given a text the device sent (the fixture), Then its 200 named the id the contact's phone shows
    [message] = inbox(api, chat.contact_phone)["messages"]
    assert message["message_id"] == chat.network_message_id != chat.message_id


def test_the_device_reacts_to_what_it_sent_and_what_it_received(api: Any, chat: Chat) -> None:
    # When the device reacts to its own text by the gateway's id
    path = f"/messages/{chat.message_id}/reaction"
    response = request(api, chat, "POST", path, {"chat_jid": chat.contact_phone, "emoji": "👍"})
    # Then 200 names the request's id and the chat's JID, and the contact's phone shows the reaction
    assert response.status_code == 200, response.text
    assert response.json() == {
        "success": True,
        "message_id": chat.message_id,
        "chat_jid": chat.contact_jid,
        "emoji": "👍",
    }
    [got] = inbox(api, chat.contact_phone)["reactions"]
    assert (got["message_id"], got["from"], got["emoji"]) == (chat.network_message_id, chat.device_jid, "👍")

    # When the contact writes to the device and the device reacts to that message (the network's id)
    received = simulator(
        api, "POST", f"/accounts/{chat.contact_phone}/messages", to=chat.device_jid, text="great"
    )["message_id"]
    body = {"chat_jid": chat.contact_jid, "emoji": "❤️"}
    assert request(api, chat, "POST", f"/messages/{received}/reaction", body).status_code == 200
    # And takes its first reaction back (an empty emoji), by the network's id
    path = f"/messages/{chat.network_message_id}/reaction"
    removed = request(api, chat, "POST", path, {"chat_jid": chat.contact_jid, "emoji": ""})
    assert (removed.status_code, removed.json()["emoji"]) == (200, ""), removed.text
    # Then the contact's phone shows only the reaction to its own message
    got = inbox(api, chat.contact_phone)["reactions"]
    assert [(r["message_id"], r["emoji"]) for r in got] == [(received, "❤️")]


def test_reaction_requests_the_network_or_the_gateway_refuses(
    api: Any, chat: Chat, envelope: Envelope
) -> None:
    def react(message_id: str, body: Any) -> Any:
        return request(api, chat, "POST", f"/messages/{message_id}/reaction", body)

    # A message nobody in the chat has: the network's 404
    envelope(react("3EB0UNKNOWN", {"chat_jid": chat.contact_jid, "emoji": "👍"}), 404, "MESSAGE_NOT_FOUND")
    # Missing fields, a chat that is no JID, an emoji that is no emoji
    envelope(react(chat.message_id, {"chat_jid": chat.contact_jid}), 400, "MISSING_REQUIRED_FIELDS")
    envelope(react(chat.message_id, {"emoji": "👍"}), 400, "MISSING_REQUIRED_FIELDS")
    envelope(react(chat.message_id, {"chat_jid": "nobody", "emoji": "👍"}), 400, "INVALID_CHAT_JID")
    envelope(react(chat.message_id, {"chat_jid": chat.contact_jid, "emoji": " 👍"}), 400, "VALIDATION_ERROR")
    envelope(
        react(chat.message_id, {"chat_jid": chat.contact_jid, "emoji": "x" * 33}), 400, "VALIDATION_ERROR"
    )
    # A group message the device did not send, named without its author: the gateway knows no such message
    group = {"chat_jid": "120363000000000001@g.us", "emoji": "👍"}
    envelope(react("3EB0THEIRS", group), 404, "MESSAGE_NOT_FOUND")
    # And nothing reached the contact
    assert inbox(api, chat.contact_phone)["reactions"] == []


def test_the_device_edits_its_text_within_the_window(
    api: Any, chat: Chat, envelope: Envelope, short_edit_window: Callable[[float], None]
) -> None:
    # When the device edits its text by the gateway's id, naming the chat by digits
    path = f"/messages/{chat.message_id}"
    response = request(api, chat, "PATCH", path, {"chat_jid": chat.contact_phone, "text": "see you at 6"})
    # Then 200, and the contact's phone shows the new text, marked edited
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "message_id": chat.message_id, "chat_jid": chat.contact_jid}
    [message] = inbox(api, chat.contact_phone)["messages"]
    assert (message["text"], message["edited"]) == ("see you at 6", True)

    # When the network's window has passed, Then 400 EDIT_TIME_EXPIRED and nothing changes
    short_edit_window(0.0)
    late = request(
        api,
        chat,
        "PATCH",
        f"/messages/{chat.network_message_id}",
        {
            "chat_jid": chat.contact_jid,
            "text": "see you at 7",
        },
    )
    envelope(late, 400, "EDIT_TIME_EXPIRED")
    assert inbox(api, chat.contact_phone)["messages"][0]["text"] == "see you at 6"


def test_only_texts_the_device_sent_can_be_edited(api: Any, chat: Chat, envelope: Envelope) -> None:
    received = simulator(
        api, "POST", f"/accounts/{chat.contact_phone}/messages", to=chat.device_jid, text="mine"
    )["message_id"]
    body = {"chat_jid": chat.contact_jid, "text": "yours now"}
    for message_id, chat_jid in (
        ("3EB0UNKNOWN", chat.contact_jid),
        (received, chat.contact_jid),  # a received message
        (chat.message_id, new_phone()),  # its id, in another chat
    ):
        response = request(api, chat, "PATCH", f"/messages/{message_id}", {**body, "chat_jid": chat_jid})
        envelope(response, 404, "MESSAGE_NOT_FOUND")
    envelope(
        request(api, chat, "PATCH", f"/messages/{chat.message_id}", {"text": "x"}),
        400,
        "MISSING_REQUIRED_FIELDS",
    )
    blank = {"chat_jid": chat.contact_jid, "text": "   "}
    envelope(
        request(api, chat, "PATCH", f"/messages/{chat.message_id}", blank), 400, "MISSING_REQUIRED_FIELDS"
    )
    assert inbox(api, chat.contact_phone)["messages"][0]["text"] == "see you at 5"


def test_the_contacts_reactions_edits_and_receipts_reach_the_webhook(
    api: Any, chat: Chat, events: Any
) -> None:
    # Given the device's events go to a webhook receiver
    events.subscribe(api, chat.token, chat.device_id)
    # When the contact reads the device's text, reacts to it, and sends then edits its own
    simulator(
        api,
        "POST",
        f"/accounts/{chat.contact_phone}/read",
        chat=chat.device_jid,
        message_ids=[chat.network_message_id],
    )
    simulator(
        api,
        "POST",
        f"/accounts/{chat.contact_phone}/messages/{chat.network_message_id}/reaction",
        chat=chat.device_jid,
        emoji="🎉",
    )
    own = simulator(api, "POST", f"/accounts/{chat.contact_phone}/messages", to=chat.device_jid, text="at 5?")
    simulator(
        api,
        "POST",
        f"/accounts/{chat.contact_phone}/messages/{own['message_id']}/edit",
        chat=chat.device_jid,
        text="at 6?",
    )
    # Then the read receipt names the gateway's id of the send beside the network's
    (read,) = events.wait_for(chat.device_id, "message.read")
    assert read["data"]["message_ids"] == [chat.network_message_id]
    assert read["data"]["gateway_message_ids"] == [chat.message_id]
    # And message.reaction names the device's message, message.edited the contact's
    (reaction,) = events.wait_for(chat.device_id, "message.reaction")
    data = reaction["data"]
    assert (data["message_id"], data["chat_jid"], data["from"], data["emoji"], data["is_from_me"]) == (
        chat.network_message_id,
        chat.contact_jid,
        chat.contact_jid,
        "🎉",
        False,
    )
    (edited,) = events.wait_for(chat.device_id, "message.edited")
    assert (edited["data"]["message_id"], edited["data"]["content"]) == (own["message_id"], "at 6?")
    assert edited["data"]["edited_at"] is not None


def test_a_receipt_that_comes_at_once_names_the_gateways_id_too(api: Any, chat: Chat, events: Any) -> None:
    # Given the device's events go to a webhook receiver
    events.subscribe(api, chat.token, chat.device_id)
    # When the device sends the contact (whose phone is always online) a text: delivered at once,
    # before the gateway's record of the send is marked sent
    body = {"number": chat.contact_phone, "text": "one more thing", "disablePresence": True}
    sent = request(api, chat, "POST", "/send/text", body)
    assert sent.status_code == 200, sent.text
    # Then its message.delivered names the send by both ids
    network_id = sent.json()["network_message_id"]

    def delivered() -> dict[str, Any] | None:
        receipts = [e["data"] for e in events.of(chat.device_id, "message.delivered")]
        return next((data for data in receipts if data["message_ids"] == [network_id]), None)

    receipt = wait_until(delivered, 10, what="the delivery receipt of the new send")
    assert receipt["gateway_message_ids"] == [sent.json()["message_id"]]
