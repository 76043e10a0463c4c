"""Planned sends over HTTP on the local stack: ``send_at`` on POST /send/* and status
publish, and the outbox as a resource (GET /sends, GET and DELETE /sends/{message_id}).

Planned times are a second or two ahead, so each waits little; every wait is on a condition
with a deadline."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from device_flows import simulator
from group_flows import Phone, contact, watched_device
from waiting import PROMPTLY, wait_until

pytestmark = pytest.mark.e2e


@pytest.fixture
def device(api: Any, events: Any) -> Phone:
    """A connected device, the only one of a new tenant, whose webhook collects its events."""
    return watched_device(api, events)


def at(seconds_ahead: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds_ahead)).isoformat()


def epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def received(api: Any, phone: str, text: str) -> list[dict[str, Any]]:
    inbox = simulator(api, "GET", f"/accounts/{phone}/inbox")["messages"]
    return [message for message in inbox if message["text"] == text]


def plan(api: Any, device: Phone, to: Phone, text: str, send_at: str, **extra: Any) -> dict[str, Any]:
    """A text planned for ``send_at``: answered 202 ``scheduled`` at once."""
    body = {"number": to.phone, "text": text, "send_at": send_at, "disablePresence": True, **extra}
    started = time.monotonic()
    answer = device.ok(api, "POST", "/send/text", body, status=202)
    assert time.monotonic() - started < PROMPTLY, "a planned send is answered at once"
    assert answer["status"] == "scheduled", answer
    return answer


def test_a_planned_send_is_answered_at_once_and_goes_out_at_its_time(
    api: Any, device: Phone, events: Any
) -> None:
    # Given a contact, and a text planned 2 s ahead
    ana = contact(api)
    send_at = at(2)
    answer = plan(api, device, ana, "good morning", send_at)

    # Then it is scheduled for that moment, and shows so in the outbox meanwhile
    assert epoch(answer["scheduled_for"]) == pytest.approx(epoch(send_at), abs=0.01)
    shown = device.ok(api, "GET", f"/sends/{answer['message_id']}")
    assert shown == {
        "success": True,
        "message_id": answer["message_id"],
        "chat_jid": ana.jid,
        "kind": "text",
        "state": "scheduled",
        "scheduled_for": answer["scheduled_for"],
        "sent_at": None,
        "network_message_id": None,
        "error": None,
    }
    assert received(api, ana.phone, "good morning") == []

    # When its time comes, then the contact gets it then, once
    (message,) = wait_until(
        lambda: received(api, ana.phone, "good morning"), 10, what="the planned message at the contact"
    )
    assert epoch(send_at) - 0.1 <= epoch(message["timestamp"]) <= epoch(send_at) + 2, message

    # And message.sent names it, and the outbox shows it sent, also by the network's id
    (sent,) = events.wait_for(device.device_id, "message.sent", timeout=10)
    assert sent["data"]["gateway_message_id"] == answer["message_id"]
    network_id = sent["data"]["message_id"]
    done = wait_until(
        lambda: (shown := device.ok(api, "GET", f"/sends/{network_id}"))["state"] == "sent" and shown,
        10,
        what="the send marked sent",
    )
    assert done["message_id"] == answer["message_id"]
    assert done["network_message_id"] == network_id
    assert done["sent_at"] is not None


@pytest.mark.parametrize(
    "send_at",
    ["next tuesday", "2027-01-15T09:00:00", 12345, "2999-01-01T00:00:00Z"],
    ids=["not-a-date", "no-timezone", "not-a-string", "over-30-days"],
)
def test_a_malformed_or_too_distant_send_at_is_refused_and_nothing_is_kept(
    api: Any, device: Phone, send_at: Any
) -> None:
    # When a send names such a moment
    ana = contact(api)
    response = device.call(api, "POST", "/send/text", {"number": ana.phone, "text": "x", "send_at": send_at})

    # Then it is 400 VALIDATION_ERROR on send_at, and the outbox has nothing
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error_code"] == "VALIDATION_ERROR"
    assert [entry["field"] for entry in body["validation"]] == ["send_at"], body
    assert device.ok(api, "GET", "/sends")["sends"] == []


def test_a_send_at_not_in_the_future_sends_at_once(api: Any, device: Phone) -> None:
    # When a send names a moment already past, then it is sent as if it named none (200)
    ana = contact(api)
    body = {"number": ana.phone, "text": "late", "send_at": at(-60), "disablePresence": True}
    answer = device.ok(api, "POST", "/send/text", body)
    assert answer["status"] == "sent"


def test_every_kind_of_send_and_a_story_can_be_planned(api: Any, device: Phone, events: Any) -> None:
    # Given a contact the device's stories reach
    ana = contact(api)
    simulator(api, "POST", f"/accounts/{device.phone}/contacts", phones=[ana.phone])
    send_at = at(2)
    base = {"number": ana.phone, "send_at": send_at, "disablePresence": True}

    # When a location, a poll and a text story are planned for the same moment
    planned = [
        device.ok(api, "POST", "/send/location", {**base, "latitude": 1.5, "longitude": 2.5}, status=202),
        device.ok(api, "POST", "/send/poll", {**base, "question": "Lunch?", "options": ["Yes", "No"]}, 202),
        device.ok(api, "POST", "/status/text", {"text": "planned story", "send_at": send_at}, status=202),
    ]

    # Then each is scheduled for then, the story to status@broadcast, all in the outbox
    assert [epoch(answer["scheduled_for"]) for answer in planned] == [pytest.approx(epoch(send_at))] * 3
    assert planned[2]["chat_jid"] == "status@broadcast"
    scheduled = device.ok(api, "GET", "/sends?state=scheduled")["sends"]
    kinds = {send["message_id"]: send["kind"] for send in scheduled}
    assert [kinds[answer["message_id"]] for answer in planned] == ["location", "poll", "status"]

    # And at that moment all three go out: the story reaches the contact's status feed
    events.wait_for(device.device_id, "message.sent", count=3, timeout=15)
    stories = simulator(api, "GET", f"/accounts/{ana.phone}/inbox")["statuses"]
    assert [story["text"] for story in stories] == ["planned story"]
    sent = device.ok(api, "GET", "/sends?state=sent")["sends"]
    assert {send["message_id"] for send in sent} == {answer["message_id"] for answer in planned}


def test_the_outbox_lists_sends_by_state_a_page_at_a_time(api: Any, device: Phone) -> None:
    # Given one send gone out and three planned an hour ahead, one of them canceled
    ana = contact(api)
    device.ok(api, "POST", "/send/text", {"number": ana.phone, "text": "now", "disablePresence": True})
    planned = [plan(api, device, ana, f"later {index}", at(3600))["message_id"] for index in range(3)]
    assert device.ok(api, "DELETE", f"/sends/{planned[1]}") == {
        "success": True,
        "message_id": planned[1],
        "state": "canceled",
    }

    # When the scheduled ones are read a page of one at a time
    pages = api.pages("/sends", device.token, "sends", state="scheduled", limit=1)

    # Then each comes once, newest first, and the other states list theirs
    assert [[send["message_id"] for send in page] for page in pages] == [[planned[2]], [planned[0]]]
    assert [send["state"] for page in pages for send in page] == ["scheduled", "scheduled"]
    canceled = device.ok(api, "GET", "/sends?state=canceled")["sends"]
    assert [send["message_id"] for send in canceled] == [planned[1]]
    assert [send["state"] for send in device.ok(api, "GET", "/sends?state=sent")["sends"]] == ["sent"]
    everything = device.ok(api, "GET", "/sends")
    assert len(everything["sends"]) == 4
    assert everything["next"] is None

    # And a state the outbox does not have is 400 VALIDATION_ERROR
    response = device.call(api, "GET", "/sends?state=queued")
    assert response.status_code == 400, response.text
    assert response.json()["error_code"] == "VALIDATION_ERROR"


def test_a_canceled_send_never_goes_out_and_one_gone_out_cannot_be_canceled(
    api: Any, device: Phone, events: Any
) -> None:
    # Given two texts planned 2 s ahead
    ana = contact(api)
    send_at = at(2)
    kept = plan(api, device, ana, "kept", send_at)
    dropped = plan(api, device, ana, "dropped", send_at)

    # When one is canceled before its time (twice: the second changes nothing)
    for _ in range(2):
        body = device.ok(api, "DELETE", f"/sends/{dropped['message_id']}")
        assert body == {"success": True, "message_id": dropped["message_id"], "state": "canceled"}

    # Then only the other goes out; the canceled one does not, even well after its time
    events.wait_for(device.device_id, "message.sent", timeout=10)
    wait_until(lambda: time.time() > epoch(send_at) + 2, 10, what="the planned time well passed")
    assert len(received(api, ana.phone, "kept")) == 1
    assert received(api, ana.phone, "dropped") == []
    assert device.ok(api, "GET", f"/sends/{dropped['message_id']}")["state"] == "canceled"

    # And canceling the one that went out is 409 ALREADY_SENT; an unknown id 404
    gone = device.call(api, "DELETE", f"/sends/{kept['message_id']}")
    assert gone.status_code == 409, gone.text
    assert gone.json()["error_code"] == "ALREADY_SENT"
    for method in ("GET", "DELETE"):
        unknown = device.call(api, method, f"/sends/{uuid.uuid4().hex.upper()}")
        assert unknown.status_code == 404, unknown.text
        assert unknown.json()["error_code"] == "MESSAGE_NOT_FOUND"


def test_a_cancel_racing_the_dispatch_either_wins_and_nothing_is_sent_or_loses_with_409(
    api: Any, device: Phone
) -> None:
    # Given eight texts planned for the same moment, 1.5 s ahead
    ana = contact(api)
    send_at = at(1.5)
    planned = [plan(api, device, ana, f"race {index}", send_at) for index in range(8)]

    # When each is canceled around that moment, as the dispatcher claims them one by one
    wait_until(lambda: time.time() >= epoch(send_at) - 0.05, 5, what="the planned moment")
    answers = [device.call(api, "DELETE", f"/sends/{answer['message_id']}") for answer in planned]

    # Then each cancel either won (200, and the message never reaches the contact) or lost
    # (409 ALREADY_SENT, and it reaches the contact once): never both, never neither
    assert {response.status_code for response in answers} <= {200, 409}
    lost = [index for index, response in enumerate(answers) if response.status_code == 409]
    wait_until(
        lambda: all(received(api, ana.phone, f"race {index}") for index in lost),
        10,
        what="the sends the cancels lost to at the contact",
    )
    for index, response in enumerate(answers):
        expected = 1 if response.status_code == 409 else 0
        assert len(received(api, ana.phone, f"race {index}")) == expected, (index, response.text)
        state = device.ok(api, "GET", f"/sends/{planned[index]['message_id']}")["state"]
        assert state in (("sending", "sent") if expected else ("canceled",)), (index, state)


def test_a_repeat_with_its_idempotency_key_answers_the_planned_send_as_it_is_now(
    api: Any, device: Phone
) -> None:
    # Given a text planned an hour ahead with an Idempotency-Key
    ana = contact(api)
    key = {"Idempotency-Key": uuid.uuid4().hex}
    body = {"number": ana.phone, "text": "once", "send_at": at(3600), "disablePresence": True}
    first = device.call(api, "POST", "/send/text", body, headers=key)
    assert first.status_code == 202, first.text

    # When it is repeated, then the same send is answered, and the outbox has it once
    again = device.call(api, "POST", "/send/text", body, headers=key)
    assert (again.status_code, again.json()["message_id"]) == (202, first.json()["message_id"])
    assert len(device.ok(api, "GET", "/sends")["sends"]) == 1

    # And once canceled, a repeat says so: 409 SEND_CANCELED (a new key sends again)
    device.ok(api, "DELETE", f"/sends/{first.json()['message_id']}")
    canceled = device.call(api, "POST", "/send/text", body, headers=key)
    assert canceled.status_code == 409, canceled.text
    assert canceled.json()["error_code"] == "SEND_CANCELED"


def test_a_repeat_of_a_planned_story_once_published_answers_as_a_published_story(
    api: Any, device: Phone, events: Any
) -> None:
    # Given a story planned 1.5 s ahead with an Idempotency-Key
    key = {"Idempotency-Key": uuid.uuid4().hex}
    body = {"text": "planned with a key", "send_at": at(1.5)}
    first = device.call(api, "POST", "/status/text", body, headers=key)
    assert first.status_code == 202, first.text

    # When it went out and the request is repeated
    (sent,) = events.wait_for(device.device_id, "message.sent", timeout=10)
    again = device.call(api, "POST", "/status/text", body, headers=key)

    # Then the answer is a published story's, naming the network's id, and nothing went out twice
    published = {"success": True, "message_id": sent["data"]["message_id"]}
    assert (again.status_code, again.json()) == (200, published)
    assert sent["data"]["chat_jid"] == "status@broadcast"
    assert len(device.ok(api, "GET", "/sends")["sends"]) == 1
