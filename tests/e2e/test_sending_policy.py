"""The sending policy over HTTP on the local stack (docs/sending-policy.md): the device's
fields (PATCH and their errors, GET), the daily limit across a UTC midnight, the new-chat
limit with known chats going on, warm-up, jitter, the pause after a rate refusal, and
``usage_today``.

UTC midnight and the end of a pause are crossed by the simulated stack's clock
(``PUT /_simulator/clock``), never by waiting; every wait is on a condition with a deadline."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from device_flows import simulator
from group_flows import Phone, contact, watched_device
from waiting import wait_until

pytestmark = pytest.mark.e2e

DAY = timedelta(days=1)


@pytest.fixture(autouse=True)
def real_clock(api: Any) -> Iterator[None]:
    """Each test starts and ends on the real clock."""
    simulator(api, "PUT", "/clock", now=datetime.now(UTC).isoformat())
    yield
    simulator(api, "PUT", "/clock", now=datetime.now(UTC).isoformat())


@pytest.fixture
def device(api: Any, events: Any) -> Phone:
    """A connected device, the only one of a new tenant, whose webhook collects its events."""
    return watched_device(api, events)


def stack_now(api: Any) -> datetime:
    return parse(simulator(api, "GET", "/clock")["now"])


def set_clock(api: Any, moment: datetime) -> None:
    answer = simulator(api, "PUT", "/clock", now=moment.isoformat())
    assert parse(answer["now"]) >= moment


def parse(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def midnight_after(moment: datetime) -> datetime:
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC) + DAY


def set_policy(api: Any, device: Phone, **settings: Any) -> dict[str, Any]:
    assert device.device_id is not None
    answer = api.request("PATCH", f"/devices/{device.device_id}", device.token, json=settings)
    assert answer.status_code == 200, answer.text
    device_view: dict[str, Any] = answer.json()["device"]
    return device_view


def shown(api: Any, device: Phone) -> dict[str, Any]:
    answer = api.request("GET", f"/devices/{device.device_id}", device.token)
    assert answer.status_code == 200, answer.text
    device_view: dict[str, Any] = answer.json()["device"]
    return device_view


def send(api: Any, device: Phone, to: Phone, text: str, status: int) -> dict[str, Any]:
    body = {"number": to.phone, "text": text, "disablePresence": True}
    return device.ok(api, "POST", "/send/text", body, status=status)


def received(api: Any, phone: Phone, text: str) -> list[dict[str, Any]]:
    inbox = simulator(api, "GET", f"/accounts/{phone.phone}/inbox")["messages"]
    return [message for message in inbox if message["text"] == text]


def test_the_policy_is_off_until_set_then_shown_and_cleared(api: Any, device: Phone) -> None:
    # Given a new device: every policy field is off, nothing used today
    today = stack_now(api).date().isoformat()
    view = shown(api, device)
    assert {name: view[name] for name in POLICY} == OFF
    assert view["sending_paused_until"] is None
    assert view["usage_today"] == {
        "day": today,
        "sent": 0,
        "new_chats": 0,
        "daily_limit": None,
        "new_chat_limit": None,
    }
    # When each field is set, then the device shows it, and today's limits follow
    settings = {
        "daily_send_limit": 300,
        "new_chat_daily_limit": 30,
        "warmup_days": 0,
        "send_jitter_seconds": 10,
    }
    view = set_policy(api, device, **settings)
    assert {name: view[name] for name in POLICY} == settings
    assert (view["usage_today"]["daily_limit"], view["usage_today"]["new_chat_limit"]) == (300, 30)
    assert {name: shown(api, device)[name] for name in POLICY} == settings
    # And a null clears a limit, leaving the others
    view = set_policy(api, device, daily_send_limit=None)
    assert {name: view[name] for name in POLICY} == settings | {"daily_send_limit": None}


POLICY = ("daily_send_limit", "new_chat_daily_limit", "warmup_days", "send_jitter_seconds")
OFF = {"daily_send_limit": None, "new_chat_daily_limit": None, "warmup_days": 0, "send_jitter_seconds": 0}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("daily_send_limit", 0),
        ("daily_send_limit", 10_001),
        ("daily_send_limit", "50"),
        ("new_chat_daily_limit", 1.5),
        ("new_chat_daily_limit", True),
        ("warmup_days", 91),
        ("warmup_days", -1),
        ("send_jitter_seconds", 61),
        ("send_jitter_seconds", "5"),
    ],
)
def test_a_policy_value_out_of_its_range_is_refused_and_changes_nothing(
    api: Any, device: Phone, field: str, value: Any
) -> None:
    # When a PATCH gives such a value
    answer = api.request("PATCH", f"/devices/{device.device_id}", device.token, json={field: value})
    # Then it is 400 VALIDATION_ERROR naming the field, and the device is as it was
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["error_code"] == "VALIDATION_ERROR"
    assert [entry["field"] for entry in body["validation"]] == [field], body
    assert {name: shown(api, device)[name] for name in POLICY} == OFF


def test_a_send_over_the_daily_limit_goes_out_once_after_utc_midnight(api: Any, device: Phone) -> None:
    # Given a device allowed 2 messages a day, the stack's clock 50 s before a UTC midnight
    ana = contact(api)
    set_policy(api, device, daily_send_limit=2)
    late = midnight_after(stack_now(api)) + DAY - timedelta(seconds=50)
    set_clock(api, late)
    # When it sends 3 texts
    send(api, device, ana, "one", 200)
    send(api, device, ana, "two", 200)
    third = send(api, device, ana, "three", 202)
    # Then the third is held, scheduled for midnight, and the device shows the day's use
    midnight = midnight_after(late)
    assert third["status"] == "scheduled"
    assert parse(third["scheduled_for"]) == midnight
    usage = shown(api, device)["usage_today"]
    assert usage == {
        "day": late.date().isoformat(),
        "sent": 2,
        "new_chats": 1,
        "daily_limit": 2,
        "new_chat_limit": None,
    }
    assert device.ok(api, "GET", f"/sends/{third['message_id']}")["state"] == "scheduled"
    assert received(api, ana, "three") == []
    # When the clock passes midnight
    set_clock(api, midnight + timedelta(seconds=5))
    # Then it goes out, once, and counts on the new day
    wait_until(lambda: received(api, ana, "three"), 15, what="the held send at the contact")
    wait_until(
        lambda: device.ok(api, "GET", f"/sends/{third['message_id']}")["state"] == "sent",
        10,
        what="the held send marked sent",
    )
    assert len(received(api, ana, "three")) == 1
    usage = wait_until(
        lambda: (usage := shown(api, device)["usage_today"])["sent"] == 1 and usage,
        10,
        what="the new day's count",
    )
    assert usage["day"] == midnight.date().isoformat()


def test_new_chats_over_their_limit_wait_while_known_chats_go_on(api: Any, device: Phone) -> None:
    # Given a device allowed 1 new chat a day, and a contact who wrote to it first
    known, first, second = contact(api, "Known"), contact(api, "First"), contact(api, "Second")
    simulator(api, "POST", f"/accounts/{known.phone}/messages", to=device.phone, text="hello there")
    set_policy(api, device, new_chat_daily_limit=1)
    wait_until(lambda: shown(api, device)["usage_today"]["new_chat_limit"] == 1, 5, what="the limit shown")
    # When it writes to two new chats, then to the one it heard from
    send(api, device, first, "to first", 200)
    held = send(api, device, second, "to second", 202)
    send(api, device, known, "to known", 200)
    # Then the second new chat waits for the next UTC day; the known chat was not held back
    now = stack_now(api)
    assert parse(held["scheduled_for"]) == midnight_after(now)
    assert received(api, known, "to known") != []
    assert received(api, second, "to second") == []
    usage = shown(api, device)["usage_today"]
    assert (usage["sent"], usage["new_chats"], usage["new_chat_limit"]) == (2, 1, 1)
    # When the next day comes, then it goes out
    set_clock(api, midnight_after(now) + timedelta(seconds=1))
    wait_until(lambda: received(api, second, "to second"), 15, what="the held new chat's send")


def test_warm_up_starts_at_a_tenth_of_the_limits_and_ramps_by_day(api: Any, device: Phone) -> None:
    # Given a device paired just now, allowed 20 a day after a 10-day warm-up
    ana = contact(api)
    view = set_policy(api, device, daily_send_limit=20, warmup_days=10)
    # Then today it may send 2 (10 %)
    assert view["usage_today"]["daily_limit"] == 2
    send(api, device, ana, "a", 200)
    send(api, device, ana, "b", 200)
    held = send(api, device, ana, "c", 202)
    assert parse(held["scheduled_for"]) == midnight_after(stack_now(api))
    # When 5 days have passed, then its limit is 55 % (11), and the held send goes
    set_clock(api, stack_now(api) + 5 * DAY)
    assert shown(api, device)["usage_today"]["daily_limit"] == 11
    wait_until(lambda: received(api, ana, "c"), 15, what="the send held by warm-up")


def test_jitter_spaces_sends_by_the_interval_plus_at_most_the_jitter(api: Any, device: Phone) -> None:
    # Given sends spaced by 1 s plus up to 1 s of jitter
    ana = contact(api)
    set_policy(api, device, min_send_interval_seconds=1, send_jitter_seconds=1)
    # When 4 texts are sent one after the other
    for text in ("j1", "j2", "j3", "j4"):
        send(api, device, ana, text, 200)
    # Then the contact got them 1 to 2 s apart (plus the stack's own latency)
    times = [parse(received(api, ana, text)[0]["timestamp"]).timestamp() for text in ("j1", "j2", "j3", "j4")]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert all(0.95 <= gap <= 2.5 for gap in gaps), gaps


def test_a_rate_refusal_pauses_new_chats_and_the_refused_send_goes_after_the_pause(
    api: Any, device: Phone, events: Any
) -> None:
    # Given a device that already wrote to a contact
    known, new, other = contact(api, "Known"), contact(api, "New"), contact(api, "Other")
    send(api, device, known, "first", 200)
    # When the network refuses its next send for rate (without saying until when)
    simulator(api, "POST", "/faults", device_id=device.device_id, operation="send_text", error="rate_limited")
    refused = send(api, device, new, "to new", 202)
    # Then the request is answered scheduled for the end of a 1 hour pause, never failed
    until = parse(refused["scheduled_for"])
    assert timedelta(minutes=59) < until - stack_now(api) <= timedelta(hours=1)
    assert device.ok(api, "GET", f"/sends/{refused['message_id']}")["state"] == "scheduled"
    # And the device shows the pause, and device.send_limited says why and until when
    assert parse(shown(api, device)["sending_paused_until"]) == until
    (limited,) = events.wait_for(device.device_id, "device.send_limited")
    assert limited["data"] == {
        "device_id": device.device_id,
        "reason": "rate_overlimit",
        "until": refused["scheduled_for"],
    }
    # When the device sends to the known chat and to another new chat during the pause
    send(api, device, known, "still going", 200)
    waiting = send(api, device, other, "to other", 202)
    # Then the known chat got it; the new chat's send waits for the end of the pause
    assert received(api, known, "still going") != []
    assert parse(waiting["scheduled_for"]) == until
    # When the clock passes the end of the pause
    set_clock(api, until + timedelta(seconds=1))
    # Then both new chats get their message, once
    wait_until(
        lambda: received(api, new, "to new") and received(api, other, "to other"), 15, what="after the pause"
    )
    assert (len(received(api, new, "to new")), len(received(api, other, "to other"))) == (1, 1)
    assert shown(api, device)["sending_paused_until"] is None


def test_a_reachout_timelock_pauses_new_chats_until_the_time_the_network_gives(
    api: Any, device: Phone, events: Any
) -> None:
    # Given a device that already wrote to a contact
    known, new = contact(api, "Known"), contact(api, "New")
    send(api, device, known, "hello", 200)
    # When the network refuses its next send with a reachout timelock ending in 10 minutes
    simulator(
        api,
        "POST",
        "/faults",
        device_id=device.device_id,
        operation="send_text",
        error="reachout_timelock",
        retry_after_seconds=600,
    )
    asked_at = stack_now(api)
    refused = send(api, device, new, "to new", 202)
    # Then the send waits for the end the network gave, not the default hour
    until = parse(refused["scheduled_for"])
    assert timedelta(minutes=9) < until - asked_at <= timedelta(minutes=10, seconds=5)
    assert parse(shown(api, device)["sending_paused_until"]) == until
    (limited,) = events.wait_for(device.device_id, "device.send_limited")
    assert limited["data"] == {
        "device_id": device.device_id,
        "reason": "reachout_timelock",
        "until": refused["scheduled_for"],
    }
    # And when the clock passes that end, the new chat gets it, once
    set_clock(api, until + timedelta(seconds=1))
    wait_until(lambda: received(api, new, "to new"), 15, what="the send after the timelock")
    assert len(received(api, new, "to new")) == 1


def test_the_networks_own_new_chat_cap_pauses_new_chats_and_known_chats_go_on(
    api: Any, device: Phone, events: Any
) -> None:
    # Given a device that heard from one person, and a network that lets it start one new chat,
    # then locks new chats for 15 minutes
    known, first, second = contact(api, "Known"), contact(api, "First"), contact(api, "Second")
    simulator(api, "POST", f"/accounts/{known.phone}/messages", to=device.jid, text="hi there")
    events.wait_for(device.device_id, "message.received")  # the host knows the chat before it publishes
    simulator(api, "PUT", f"/devices/{device.device_id}/new_chat_cap", limit=1, lock_seconds=900)
    # When it starts one new chat, then a second
    send(api, device, first, "first new", 200)
    refused = send(api, device, second, "second new", 202)
    # Then the second waits for the end of the network's lock, which the device shows
    cap = simulator(api, "GET", f"/devices/{device.device_id}/new_chat_cap")["new_chat_cap"]
    assert parse(refused["scheduled_for"]) == parse(cap["locked_until"])
    assert parse(shown(api, device)["sending_paused_until"]) == parse(cap["locked_until"])
    # And the chat it heard from still gets its answer at once
    send(api, device, known, "answer", 200)
    assert received(api, known, "answer") != []
    assert received(api, second, "second new") == []
    # When the lock ends, the second new chat gets its message, once
    set_clock(api, parse(cap["locked_until"]) + timedelta(seconds=1))
    wait_until(lambda: received(api, second, "second new"), 15, what="the send after the lock")
    assert len(received(api, second, "second new")) == 1
