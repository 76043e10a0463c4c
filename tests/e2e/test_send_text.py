"""POST /send/text end to end: HTTP → messages function → outbox and command bus → session host
→ simulated network, where the recipient's phone shows the typing and the message."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import pytest
import requests
from device_flows import simulator
from group_flows import Phone, connected_device, contact
from waiting import wait_until

pytestmark = pytest.mark.e2e

Envelope = Callable[..., dict[str, Any]]


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def send(api: Any, device: Phone, body: Any, key: str | None = None) -> requests.Response:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return device.call(api, "POST", "/send/text", json=body, headers=headers)


def inbox(api: Any, phone: str) -> dict[str, Any]:
    return simulator(api, "GET", f"/accounts/{phone}/inbox")


def received(api: Any, recipient: Phone, sender: Phone) -> list[dict[str, Any]]:
    """The messages ``recipient``'s phone got from ``sender``, in arrival order."""
    return [message for message in inbox(api, recipient.phone)["messages"] if message["from"] == sender.jid]


def seconds(value: float | str) -> float:
    """A simulator time (epoch seconds or RFC 3339) as epoch seconds."""
    if isinstance(value, int | float):
        return float(value)
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def timed(call: Callable[[], requests.Response]) -> tuple[requests.Response, float, float]:
    """The response of ``call`` and when (monotonic) it started and ended."""
    started = time.monotonic()
    response = call()
    return response, started, time.monotonic()


def test_a_delayed_send_types_then_sends_while_a_send_without_delay_is_not_held_up(
    api: Any, tenant: Any
) -> None:
    # Given a connected device and two contacts
    device = connected_device(api, tenant.admin_token)
    ana, bob = contact(api, "Ana"), contact(api, "Bob")
    slow_body = {"number": ana.phone, "text": "after a pause", "delay": 2, "typingDuration": 1}
    quick_body = {"number": bob.phone, "text": "right away", "disablePresence": True}

    # When a send with delay=2 and typingDuration=1 starts, and then one with delay 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        slow = pool.submit(timed, lambda: send(api, device, slow_body))
        wait_until(lambda: requested(tenant, device) == 1, 5, what="the first send in the outbox")
        quick = pool.submit(timed, lambda: send(api, device, quick_body))
        (slow_response, slow_start, slow_end), (quick_response, _, quick_end) = slow.result(), quick.result()

    # Then the first is answered sent after at least 3 s, the second sooner
    assert slow_response.status_code == 200, slow_response.text
    body = slow_response.json()
    assert body == {
        "success": True,
        "message_id": body["message_id"],
        "status": "sent",
        "chat_jid": ana.jid,
        "network_message_id": body["network_message_id"],
    }
    # (the network's id: the one Ana's phone shows)
    assert [m["message_id"] for m in received(api, ana, device)] == [body["network_message_id"]]
    assert slow_end - slow_start >= 3.0
    assert quick_response.status_code == 200, quick_response.text
    assert quick_end < slow_end

    # And Ana's phone saw the device typing about a second before the message, which came once
    ana_inbox = inbox(api, ana.phone)
    states = [(entry["state"], seconds(entry["at"])) for entry in ana_inbox["presence"]]
    assert [state for state, _ in states] == ["composing", "paused"], states
    (message,) = [m for m in ana_inbox["messages"] if m["from"] == device.jid]
    assert message["text"] == "after a pause"
    assert 0.7 <= seconds(message["timestamp"]) - states[0][1] <= 2.5
    assert 0.7 <= states[1][1] - states[0][1] <= 2.5

    # And Bob's phone got its message without any typing shown
    bob_inbox = inbox(api, bob.phone)
    assert bob_inbox["presence"] == []
    assert [m["text"] for m in bob_inbox["messages"] if m["from"] == device.jid] == ["right away"]


def test_an_idempotency_key_sends_once_and_answers_repeats_with_the_first_answer(
    api: Any, tenant: Any, envelope: Envelope
) -> None:
    # Given a connected device whose next send the network fails, and a contact
    device = connected_device(api, tenant.admin_token)
    ana = contact(api)
    simulator(api, "POST", "/faults", device_id=device.device_id, operation="send_text", error="network")
    body = {"number": ana.jid, "text": "exactly once", "typingDuration": 0}
    key = str(uuid.uuid4())

    # When the same request with the same key is sent three times
    first = send(api, device, body, key)
    second = send(api, device, body, key)
    third = send(api, device, body, key)

    # Then the failure left no trace: the retry sent it, and the repeat got the same answer
    envelope(first, 500, "SEND_FAILED")
    assert second.status_code == 200, second.text
    assert second.json()["status"] == "sent"
    assert (third.status_code, third.json()) == (200, second.json())
    assert [m["text"] for m in received(api, ana, device)] == ["exactly once"]

    # And the key with another body is refused, and nothing more is sent
    envelope(send(api, device, {**body, "text": "something else"}, key), 409, "IDEMPOTENCY_KEY_REUSED")
    assert len(received(api, ana, device)) == 1

    # And the same key through another tenant's device is another request altogether
    other = connected_device(api, api.register().admin_token)
    elsewhere = send(api, other, body, key)
    assert elsewhere.status_code == 200, elsewhere.text
    assert elsewhere.json()["message_id"] != second.json()["message_id"]
    assert [m["text"] for m in received(api, ana, other)] == ["exactly once"]


@pytest.mark.parametrize(("fault", "taken_by_the_network"), [("timeout", 0), ("ack_lost", 1)])
def test_a_send_without_a_clear_outcome_keeps_its_key_and_is_never_sent_twice(
    api: Any, tenant: Any, envelope: Envelope, fault: str, taken_by_the_network: int
) -> None:
    # Given a connected device whose next send the network leaves unanswered: it either never
    # got it (timeout) or took it and its acknowledgement was lost (ack_lost)
    device = connected_device(api, tenant.admin_token)
    ana = contact(api)
    simulator(api, "POST", "/faults", device_id=device.device_id, operation="send_text", error=fault)
    body = {"number": ana.jid, "text": "at most once", "typingDuration": 0}
    key = str(uuid.uuid4())

    # When it is sent with a key, and the same request is repeated twice
    first = send(api, device, body, key)
    repeats = [send(api, device, body, key) for _ in range(2)]

    # Then each answer is the timeout, the key stays bound to the send (the answers say so),
    # and the message is on the network as often as the network took it: never twice
    assert "stays bound" in envelope(first, 503, "SERVICE_UNAVAILABLE")["error"]
    for repeat in repeats:
        assert "bound to this failed send" in envelope(repeat, 503, "SERVICE_UNAVAILABLE")["error"]
    assert [m["text"] for m in received(api, ana, device)] == ["at most once"] * taken_by_the_network

    # And a new key sends it again, once
    again = send(api, device, body, str(uuid.uuid4()))
    assert again.status_code == 200, again.text
    assert [m["text"] for m in received(api, ana, device)] == ["at most once"] * (taken_by_the_network + 1)


def test_a_repeat_of_a_scheduled_send_answers_its_state_now_and_sends_nothing(
    api: Any, tenant: Any, settings_override: Callable[..., None]
) -> None:
    # Given a send answered 202 scheduled under a key (due after the 1 s hold)
    device = connected_device(api, tenant.admin_token)
    ana = contact(api)
    settings_override(SEND_HOLD_SECONDS="1")
    body = {"number": ana.phone, "text": "later, once", "delay": 3, "disablePresence": True}
    key = str(uuid.uuid4())
    first = send(api, device, body, key)
    assert first.status_code == 202, first.text
    scheduled = first.json()

    # When it is repeated before it goes out, and after
    early = send(api, device, body, key)
    wait_until(lambda: received(api, ana, device), 10, what="the scheduled message")

    def repeated_as_sent() -> requests.Response | None:
        late = send(api, device, body, key)
        return late if late.status_code == 200 else None

    late = wait_until(repeated_as_sent, 5, what="a repeat answered sent")

    # Then the early repeat is still scheduled, the late one is the send as it is now (sent),
    # both naming the first request's message, and the message went out once
    assert early.status_code == 202, early.text
    assert early.json()["message_id"] == scheduled["message_id"]
    [once] = received(api, ana, device)
    assert late.json() == {
        "success": True,
        "message_id": scheduled["message_id"],
        "status": "sent",
        "chat_jid": ana.jid,
        "network_message_id": once["message_id"],
    }
    assert [m["text"] for m in received(api, ana, device)] == ["later, once"]


def test_a_repeat_while_the_first_request_is_held_is_refused_in_progress(
    api: Any, tenant: Any, envelope: Envelope
) -> None:
    # Given a send held for its delay
    device = connected_device(api, tenant.admin_token)
    ana = contact(api)
    body = {"number": ana.phone, "text": "once", "delay": 2, "disablePresence": True}
    key = str(uuid.uuid4())
    with ThreadPoolExecutor(max_workers=1) as pool:
        first = pool.submit(send, api, device, body, key)
        wait_until(lambda: queued(tenant, device), 5, what="the first send in the outbox")

        # When the same request is repeated meanwhile
        repeat = send(api, device, body, key)

        # Then the repeat is refused as in progress, and the first goes out once
        envelope(repeat, 409, "IDEMPOTENCY_KEY_IN_PROGRESS")
        assert first.result().status_code == 200
    assert [m["text"] for m in received(api, ana, device)] == ["once"]


def requested(tenant: Any, device: Phone) -> int:
    """How many sends the device's outbox holds, finished or not."""
    from gateway.messages import outbox
    from gateway.models import SendModel

    return SendModel.count(outbox.device_key(tenant.id, str(device.device_id)), consistent_read=True)


def queued(tenant: Any, device: Phone) -> bool:
    """Whether the device's outbox holds a send not yet finished."""
    from gateway.messages import outbox

    return bool(outbox.unfinished(tenant.id, str(device.device_id)))


def test_sends_of_a_spaced_device_go_out_in_order_at_least_the_interval_apart(
    api: Any, tenant: Any, settings_override: Callable[..., None]
) -> None:
    # Given a device whose sends are spaced by 2 s, and a hold short enough to see the 202s
    settings_override(SEND_HOLD_SECONDS="4")
    device = connected_device(api, tenant.admin_token)
    ana = contact(api)
    patched = api.request(
        "PATCH", f"/devices/{device.device_id}", tenant.admin_token, json={"min_send_interval_seconds": 2}
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["device"]["min_send_interval_seconds"] == 2

    # When five sends are requested at once, in order
    texts = [f"message {index}" for index in range(5)]
    with ThreadPoolExecutor(max_workers=5) as pool:
        futures = []
        for count, text in enumerate(texts, start=1):
            body = {"number": ana.phone, "text": text, "typingDuration": 0}
            futures.append(pool.submit(send, api, device, body))
            # the next one is requested once this one is in the outbox: the request order is known
            wait_until(lambda n=count: requested(tenant, device) == n, 5, what=f"send {count} in the outbox")
        responses = [future.result() for future in futures]

    # Then none is refused: each is sent or scheduled
    assert {response.status_code for response in responses} <= {200, 202}, [r.text for r in responses]

    # And they reach Ana in request order, each at least 2 s after the previous one
    def all_five() -> list[dict[str, Any]] | None:
        messages = received(api, ana, device)
        return messages if len(messages) == len(texts) else None

    messages = wait_until(all_five, 30, what="the five messages")
    assert [message["text"] for message in messages] == texts
    times = [seconds(message["timestamp"]) for message in messages]  # to the millisecond
    assert all(later - earlier >= 2.0 - 0.002 for earlier, later in itertools.pairwise(times)), times


def test_a_send_due_after_the_hold_limit_is_scheduled_and_still_sent(
    api: Any, tenant: Any, settings_override: Callable[..., None]
) -> None:
    # Given a hold limit of 2 s
    settings_override(SEND_HOLD_SECONDS="2")
    device = connected_device(api, tenant.admin_token)
    ana = contact(api)

    # When a send is delayed 4 s
    response = send(api, device, {"number": ana.phone, "text": "later", "delay": 4, "typingDuration": 0})

    # Then it is answered 202 scheduled, with when it should go out
    assert response.status_code == 202, response.text
    body = response.json()
    assert body == {
        "success": True,
        "message_id": body["message_id"],
        "status": "scheduled",
        "chat_jid": ana.jid,
        "scheduled_for": body["scheduled_for"],
    }
    assert seconds(body["scheduled_for"]) > time.time()

    # And the message arrives later, once
    wait_until(lambda: received(api, ana, device), 15, what="the scheduled message")
    assert [m["text"] for m in received(api, ana, device)] == ["later"]


def test_another_tenant_can_neither_change_nor_send_through_a_device(
    api: Any, tenant: Any, envelope: Envelope
) -> None:
    # Given a connected device of one tenant and the admin of another
    device = connected_device(api, tenant.admin_token)
    ana = contact(api)
    intruder = api.register().admin_token

    # When the intruder changes its send spacing or sends through it
    patched = api.request(
        "PATCH", f"/devices/{device.device_id}", intruder, json={"min_send_interval_seconds": 600}
    )
    sent = api.request(
        "POST",
        "/send/text",
        intruder,
        json={"number": ana.phone, "text": "not mine"},
        headers={"X-Device-Id": device.device_id},
    )

    # Then both are 404, as for a device that does not exist, and nothing changed or went out
    envelope(patched, 404, "DEVICE_NOT_FOUND")
    envelope(sent, 404, "DEVICE_NOT_FOUND")
    own = api.request("GET", f"/devices/{device.device_id}", tenant.admin_token).json()["device"]
    assert own["min_send_interval_seconds"] == 0
    assert received(api, ana, device) == []


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({}, "MISSING_REQUIRED_FIELDS", None),
        ({"number": "4915112345678"}, "MISSING_REQUIRED_FIELDS", "text"),
        ({"number": "", "text": "hi"}, "MISSING_REQUIRED_FIELDS", "number"),
        ({"number": "4915112345678", "text": "   "}, "MISSING_REQUIRED_FIELDS", "text"),
        ({"number": "+4915112345678", "text": "hi"}, "INVALID_CHAT_JID", None),
        ({"number": "someone@example.com", "text": "hi"}, "INVALID_CHAT_JID", None),
        ({"number": "4915112345678", "text": "x" * 4097}, "VALIDATION_ERROR", "text"),
        ({"number": "4915112345678", "text": "hi", "delay": 3601}, "VALIDATION_ERROR", "delay"),
        (
            {"number": "4915112345678", "text": "hi", "typingDuration": -1},
            "VALIDATION_ERROR",
            "typingDuration",
        ),
        (
            {"number": "4915112345678", "text": "hi", "disablePresence": "yes"},
            "VALIDATION_ERROR",
            "disablePresence",
        ),
    ],
)
def test_invalid_sends_are_refused_before_anything_is_queued(
    api: Any, tenant: Any, envelope: Envelope, body: dict[str, Any], code: str, field: str | None
) -> None:
    # Given a device that is not connected (so a body that passed would be 503, not 400)
    response = api.request("POST", "/devices", tenant.admin_token, json={})
    device_id = response.json()["device"]["id"]

    # When a send with this body is requested
    answer = api.request(
        "POST", "/send/text", tenant.admin_token, json=body, headers={"X-Device-Id": device_id}
    )

    # Then 400 with the code, naming the field
    error = envelope(answer, 400, code)
    if field is not None:
        assert field in [item["field"] for item in error["validation"]], error


def test_idempotency_key_header_is_bounded(api: Any, tenant: Any, envelope: Envelope) -> None:
    response = api.request("POST", "/devices", tenant.admin_token, json={})
    device_id = response.json()["device"]["id"]
    body = {"number": "4915112345678", "text": "hi"}
    for key in ("", "k" * 256):
        answer = api.request(
            "POST",
            "/send/text",
            tenant.admin_token,
            json=body,
            headers={"X-Device-Id": device_id, "Idempotency-Key": key},
        )
        envelope(answer, 400, "VALIDATION_ERROR")
    # a key of 255 characters is accepted: the device not being connected is what refuses it
    answer = api.request(
        "POST",
        "/send/text",
        tenant.admin_token,
        json=body,
        headers={"X-Device-Id": device_id, "Idempotency-Key": "k" * 255},
    )
    envelope(answer, 503, "DEVICE_NOT_READY")
