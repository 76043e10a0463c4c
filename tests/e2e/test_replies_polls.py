"""Replies and polls end to end: ``reply_to`` on POST /send/* → outbox → session host (which
resolves the gateway's id to the network's) → the simulated network, where the recipient's
phone shows the quote; a contact's reply reaches the webhook with ``quoted``; POST /send/poll
→ the contact's phone shows the poll, its vote reaches the webhook as ``poll.vote``."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
import requests
from device_flows import simulator
from group_flows import Phone, connected_device, contact
from waiting import wait_until

pytestmark = pytest.mark.e2e

Envelope = Callable[..., dict[str, Any]]
POLL = {"question": "Lunch where?", "options": ["Pizza", "Sushi", "Tacos"], "disablePresence": True}


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def messages_from(api: Any, phone: str, sender: Phone) -> list[dict[str, Any]]:
    """What ``phone`` got from ``sender``, as its inbox shows it, in arrival order."""
    inbox = simulator(api, "GET", f"/accounts/{phone}/inbox")["messages"]
    return [message for message in inbox if message["from"] == sender.jid]


def send(
    api: Any, device: Phone, kind: str, body: dict[str, Any], key: str | None = None
) -> requests.Response:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return device.call(api, "POST", f"/send/{kind}", json=body, headers=headers)


def test_a_reply_by_the_gateways_id_quotes_the_sent_message_on_the_recipients_phone(
    api: Any, tenant: Any
) -> None:
    # Given a text the device sent to a contact
    device, ana = connected_device(api, tenant.admin_token), contact(api)
    first = send(api, device, "text", {"number": ana.phone, "text": "Lunch?", "disablePresence": True})
    assert first.status_code == 200, first.text
    [asked] = messages_from(api, ana.phone, device)

    # When the device sends a place replying to it by the id POST /send/text answered
    body = {"number": ana.phone, "latitude": 52.5, "longitude": 13.4, "name": "Here", "disablePresence": True}
    reply = send(api, device, "location", {**body, "reply_to": first.json()["message_id"]})

    # Then the contact's phone shows the place quoting the text by the network's id, its author and text
    assert reply.status_code == 200, reply.text
    quoted = messages_from(api, ana.phone, device)[-1]
    assert (quoted["type"], quoted["quoted"]) == (
        "location",
        {"message_id": asked["message_id"], "from": device.jid, "content": "Lunch?"},
    )


def test_replies_go_both_ways_with_what_they_quote(api: Any, tenant: Any, events: Any) -> None:
    # Given a device subscribed to its events, and a contact who wrote to it
    device, ana = connected_device(api, tenant.admin_token), contact(api)
    assert device.device_id is not None
    events.subscribe(api, tenant.admin_token, device.device_id)
    simulator(api, "POST", f"/accounts/{ana.phone}/messages", to=device.jid, text="Free tonight?")
    (hello,) = events.wait_for(device.device_id, "message.received")
    assert hello["data"]["quoted"] is None

    # When the device replies by the network's id of the message received
    body = {
        "number": ana.phone,
        "text": "Yes!",
        "disablePresence": True,
        "reply_to": hello["data"]["message_id"],
    }
    response = send(api, device, "text", body)

    # Then the contact's phone shows the reply quoting the contact's own message
    assert response.status_code == 200, response.text
    [reply] = messages_from(api, ana.phone, device)
    assert reply["quoted"] == {
        "message_id": hello["data"]["message_id"],
        "from": ana.jid,
        "content": "Free tonight?",
    }

    # When the contact answers the device's reply with a quote
    simulator(
        api,
        "POST",
        f"/accounts/{ana.phone}/messages",
        to=device.jid,
        text="Great",
        reply_to=reply["message_id"],
    )

    # Then the device's message.received carries what it quotes
    received = events.wait_for(device.device_id, "message.received", count=2)
    [answer] = [event for event in received if event["data"]["content"] == "Great"]
    assert answer["data"]["quoted"] == {
        "message_id": reply["message_id"],
        "from": device.jid,
        "content": "Yes!",
    }


def test_a_scheduled_reply_keeps_its_quote_and_an_unknown_id_is_quoted_as_given(
    api: Any, tenant: Any, settings_override: Callable[..., None]
) -> None:
    # Given a hold limit of 1 s and a text the device sent
    settings_override(SEND_HOLD_SECONDS="1")
    device, ana = connected_device(api, tenant.admin_token), contact(api)
    first = send(api, device, "text", {"number": ana.phone, "text": "Plan A", "disablePresence": True})
    assert first.status_code == 200, first.text
    # When a reply to it is delayed past the hold, and another replies to an id nobody knows
    body = {"number": ana.phone, "text": "Agreed", "delay": 2, "disablePresence": True}
    later = send(api, device, "text", {**body, "reply_to": first.json()["message_id"]})
    unknown = send(
        api,
        device,
        "text",
        {"number": ana.phone, "text": "Re:", "reply_to": "3EB0NOWHERE", "disablePresence": True},
    )

    # Then the first is answered 202 scheduled and, once out from the outbox, quotes the text
    assert later.status_code == 202, later.text
    wait_until(lambda: len(messages_from(api, ana.phone, device)) == 3, 15, what="the scheduled reply")
    by_text = {m["text"]: m for m in messages_from(api, ana.phone, device)}
    assert by_text["Agreed"]["quoted"]["content"] == "Plan A"
    assert by_text["Agreed"]["quoted"]["message_id"] == by_text["Plan A"]["message_id"]
    # And the other quotes the id as given, its author and text unknown to the network
    assert unknown.status_code == 200, unknown.text
    assert by_text["Re:"]["quoted"] == {"message_id": "3EB0NOWHERE", "from": None, "content": None}


def test_a_poll_is_sent_and_its_votes_reach_the_webhook_as_texts(api: Any, tenant: Any, events: Any) -> None:
    # Given a device subscribed to its events, and a contact
    device, ana = connected_device(api, tenant.admin_token), contact(api)
    assert device.device_id is not None
    events.subscribe(api, tenant.admin_token, device.device_id)

    # When the device sends a poll of one answer, under an Idempotency-Key, twice
    key = str(uuid.uuid4())
    response = send(api, device, "poll", {"number": ana.phone, **POLL}, key)
    again = send(api, device, "poll", {"number": ana.phone, **POLL}, key)

    # Then it is answered as POST /send/text, once, and the contact's phone shows the poll
    assert response.status_code == 200, response.text
    assert response.json() == {
        "success": True,
        "message_id": response.json()["message_id"],
        "status": "sent",
        "chat_jid": ana.jid,
        "network_message_id": response.json()["network_message_id"],
    }
    assert again.json() == response.json()
    [poll] = messages_from(api, ana.phone, device)
    assert (poll["type"], poll["poll"]) == (
        "poll",
        {
            "question": "Lunch where?",
            "options": ["Pizza", "Sushi", "Tacos"],
            "multiple_answers": False,
            "votes": {},
        },
    )
    (sent,) = events.wait_for(device.device_id, "message.sent")
    assert (sent["data"]["message_type"], sent["data"]["content"]) == ("poll", "Lunch where?")

    # When the contact votes, then changes the vote
    path = f"/accounts/{ana.phone}/polls/{poll['message_id']}/vote"
    simulator(api, "POST", path, chat=device.jid, options=["Sushi"])
    simulator(api, "POST", path, chat=device.jid, options=["Tacos"])

    # Then the webhook gets poll.vote for each, on the poll, naming the voter and the option's text
    # (webhooks may arrive in either order; the phone's poll below shows which vote stands)
    votes = events.wait_for(device.device_id, "poll.vote", count=2)
    assert sorted(vote["data"]["selected_options"] for vote in votes) == [["Sushi"], ["Tacos"]]
    assert {key: votes[0]["data"][key] for key in ("message_id", "chat_jid", "voter")} == {
        "message_id": response.json()["network_message_id"],
        "chat_jid": ana.jid,
        "voter": ana.jid,
    }
    assert sent["data"]["message_id"] == response.json()["network_message_id"]
    # And the contact's phone shows the poll with the vote as it stands
    [poll] = messages_from(api, ana.phone, device)
    assert poll["poll"]["votes"] == {ana.jid: ["Tacos"]}


def test_a_poll_of_several_answers_takes_several_and_the_simulator_refuses_what_a_poll_does_not_have(
    api: Any, tenant: Any, envelope: Envelope
) -> None:
    device, ana = connected_device(api, tenant.admin_token), contact(api)
    response = send(api, device, "poll", {"number": ana.phone, **POLL, "multiple_answers": True})
    assert response.status_code == 200, response.text
    [poll] = messages_from(api, ana.phone, device)
    path = f"/_simulator/accounts/{ana.phone}/polls/{poll['message_id']}/vote"

    chosen = api.request(
        "POST", path, api.master_token, json={"chat": device.jid, "options": ["Tacos", "Pizza"]}
    )
    unknown = api.request("POST", path, api.master_token, json={"chat": device.jid, "options": ["Curry"]})
    elsewhere = api.request(
        "POST",
        f"/_simulator/accounts/{ana.phone}/polls/3EB0NOPOLL/vote",
        api.master_token,
        json={"chat": device.jid, "options": []},
    )

    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["selected_options"] == ["Pizza", "Tacos"]  # in the poll's order
    envelope(unknown, 400, "VALIDATION_ERROR")
    envelope(elsewhere, 404, "MESSAGE_NOT_FOUND")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"options": ["A", "A"]}, 400, "VALIDATION_ERROR"),
        ({"options": ["A"]}, 400, "VALIDATION_ERROR"),
        ({"question": None}, 400, "MISSING_REQUIRED_FIELDS"),
        ({"options": None}, 400, "MISSING_REQUIRED_FIELDS"),
        ({"reply_to": "with space"}, 400, "VALIDATION_ERROR"),
        ({"number": "not-a-number"}, 400, "INVALID_CHAT_JID"),
    ],
    ids=["repeated-option", "one-option", "no-question", "no-options", "bad-reply-to", "bad-number"],
)
def test_a_poll_the_gateway_cannot_send_is_refused_with_its_code(
    api: Any, tenant: Any, envelope: Envelope, body: dict[str, Any], status: int, code: str
) -> None:
    device, ana = connected_device(api, tenant.admin_token), contact(api)
    request = {
        key: value for key, value in {"number": ana.phone, **POLL, **body}.items() if value is not None
    }
    envelope(send(api, device, "poll", request), status, code)
    assert messages_from(api, ana.phone, device) == []


def test_a_poll_through_a_device_not_connected_is_503(api: Any, tenant: Any, envelope: Envelope) -> None:
    # Given a device its user disconnected
    device = connected_device(api, tenant.admin_token)
    disconnect = api.request("POST", f"/devices/{device.device_id}/disconnect", tenant.admin_token)
    assert disconnect.status_code == 200, disconnect.text
    # When a poll is sent through it, Then 503 DEVICE_DISCONNECTED, as for every send
    envelope(send(api, device, "poll", {"number": "4915112345678", **POLL}), 503, "DEVICE_DISCONNECTED")
