"""POST /send/text's logic against a stand-in bus and outbox: what is enqueued and asked of the
session host, and how each answer (or none) becomes HTTP."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest
from stand_in_bus import StandInBus, install
from waiting import wait_until

from gateway.bus import BusTimeout, CommandName, DeviceSnapshot, Reply
from gateway.errors import ApiError
from gateway.failures.kinds import ErrorKind
from gateway.messages import outbox, sending
from gateway.messages.schemas import SendTextRequest
from gateway.messages.sends import Send, SendState
from gateway.models import DeviceModel
from gateway.web.idempotency import StoredResponse, Unclear

HOLD = 25.0
PHONE = "4915112345678"
JID = f"{PHONE}@s.whatsapp.net"


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> StandInBus:
    return install(monkeypatch, sending)


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> list[Send]:
    """The sends written to the outbox, kept in memory."""
    sends: list[Send] = []
    monkeypatch.setattr(outbox, "store", sends.append)
    return sends


def device(status: str = "connected") -> DeviceModel:
    return DeviceModel(
        "tenant-1", "device-1", owner_user_id="u", name="d", status=status, created_at="x", updated_at="x"
    )


def request(**body: Any) -> SendTextRequest:
    return SendTextRequest.model_validate({"number": PHONE, "text": "hello", **body})


SENT_OUTCOME = {"status": "sent", "message_id": "M1", "chat_jid": JID, "network_message_id": "3EB0N1"}
"""The host's answer for a send that went out (the network's id with it)."""


def reply(**fields: Any) -> Reply:
    return Reply(command_id="c", **fields)


def test_a_send_is_enqueued_then_asked_of_the_host_for_the_hold(
    bus: StandInBus, enqueued: list[Send]
) -> None:
    # Given a host that answers the send went out
    bus.answer = reply(ok=True, result=SENT_OUTCOME)
    # When a text is sent with pacing fields
    answer = sending.send_text(device(), request(delay=5, typingDuration=2), hold_seconds=HOLD)
    # Then it was written for the chat's JID, and SEND_TEXT carries it whole (with the
    # device's send spacing and sending policy) with the hold as deadline
    (send,) = enqueued
    assert (send.chat_jid, send.text, send.delay_seconds, send.typing_seconds) == (JID, "hello", 5, 2)
    assert bus.sent == [
        {
            "name": CommandName.SEND_TEXT,
            "tenant_id": "tenant-1",
            "device_id": "device-1",
            "host_queue_url": None,
            "args": {
                "send_key": send.send_key,
                "send": {key: value for key, value in dataclasses.asdict(send).items() if value is not None},
                "min_send_interval_seconds": 0,
                "sending_policy": {"warmup_days": 0, "send_jitter_seconds": 0},
            },
            "timeout": HOLD,
        }
    ]
    # And the answer names both ids: the gateway's and the network's
    assert (answer.status_code, answer.body) == (
        200,
        {
            "success": True,
            "message_id": send.message_id,
            "status": "sent",
            "chat_jid": JID,
            "network_message_id": "3EB0N1",
        },
    )


def test_without_presence_no_typing_time_is_stored(bus: StandInBus, enqueued: list[Send]) -> None:
    bus.answer = reply(ok=True, result=SENT_OUTCOME)
    sending.send_text(device(), request(typingDuration=9, disablePresence=True), hold_seconds=HOLD)
    assert (enqueued[0].typing_seconds, enqueued[0].disable_presence) == (0, True)


def test_the_hosts_scheduled_answer_is_202(bus: StandInBus, enqueued: list[Send]) -> None:
    when = "2026-11-22T10:00:00.000Z"
    bus.answer = reply(
        ok=True, result={"status": "scheduled", "message_id": "M1", "chat_jid": JID, "scheduled_for": when}
    )
    answer = sending.send_text(device(), request(delay=60), hold_seconds=HOLD)
    assert (answer.status_code, answer.body["status"], answer.body["scheduled_for"]) == (
        202,
        "scheduled",
        when,
    )


def test_no_answer_within_the_hold_is_202_for_when_the_send_is_due(
    bus: StandInBus, enqueued: list[Send]
) -> None:
    # Given a host that does not answer within the hold (the send stays in the outbox)
    bus.answer = BusTimeout("no answer")
    # When a send delayed 60 s is requested
    answer = sending.send_text(device(), request(delay=60), hold_seconds=HOLD)
    # Then 202, scheduled for its due time
    assert answer.status_code == 202
    assert answer.body["message_id"] == enqueued[0].message_id
    assert answer.body["scheduled_for"][:19] == time.strftime(
        "%Y-%m-%dT%H:%M:%S", time.gmtime(enqueued[0].not_before)
    )


@pytest.mark.parametrize(
    ("kind", "snapshot", "status", "code", "unclear"),
    [
        ("network", None, 500, "SEND_FAILED", False),
        ("rate_limited", None, 429, "RATE_LIMITED", False),
        ("invalid", None, 400, "VALIDATION_ERROR", False),
        ("not_found", None, 404, "NOT_FOUND", False),
        ("timeout", None, 503, "SERVICE_UNAVAILABLE", True),
        ("host_error", None, 500, "DEVICE_ERROR", True),
        ("not_connected", DeviceSnapshot("disconnected", False, True, JID), 503, "DEVICE_DISCONNECTED", True),
        ("not_running", None, 503, "DEVICE_NOT_READY", True),
        ("something_new", None, 500, "DEVICE_ERROR", True),
    ],
)
def test_a_failed_send_is_answered_by_its_kind_and_only_a_refusal_is_clear(
    bus: StandInBus,
    enqueued: list[Send],
    kind: str,
    snapshot: DeviceSnapshot | None,
    status: int,
    code: str,
    unclear: bool,
) -> None:
    # Given a host that answers the send failed with this kind
    bus.answer = reply(ok=False, error_kind=kind, error_message="refused", device=snapshot)
    # When a text is sent
    with pytest.raises(ApiError) as raised:
        sending.send_text(device(), request(), hold_seconds=HOLD)
    # Then the kind's answer; unclear unless the network refused it (the outbox may still
    # send it otherwise), and an unclear one is bound to the send
    assert (raised.value.status, raised.value.code) == (status, code)
    assert isinstance(raised.value, Unclear) is unclear
    if isinstance(raised.value, Unclear):
        assert raised.value.bound == {"send_key": enqueued[0].send_key}
    if kind == "invalid":
        assert raised.value.validation[0]["field"] == "number"


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        (Reply(command_id="c", ok=True, result={}), "DEVICE_ERROR"),  # an answer without its status
        (  # sent, but without the network's id the 200 must carry
            Reply(command_id="c", ok=True, result={**SENT_OUTCOME, "network_message_id": None}),
            "DEVICE_ERROR",
        ),
        (RuntimeError("SQS answered 500"), "INTERNAL_ERROR"),  # the command may be on its way
    ],
)
def test_an_incomplete_or_missing_answer_is_an_unclear_500(
    bus: StandInBus, enqueued: list[Send], answer: Reply | Exception, code: str
) -> None:
    # Given a send written to the outbox whose command gets this answer
    bus.answer = answer
    # When a text is sent, Then the failure is an unclear 500 bound to the send
    with pytest.raises(Unclear) as raised:
        sending.send_text(device(), request(), hold_seconds=HOLD)
    assert (raised.value.status, raised.value.code) == (500, code)
    # (the outbox write runs beside the command and may land after the answer: waited for)
    wait_until(lambda: enqueued, 5, what="the outbox write")
    assert raised.value.bound == {"send_key": enqueued[0].send_key}


def test_a_202_is_bound_to_its_send(bus: StandInBus, enqueued: list[Send]) -> None:
    bus.answer = BusTimeout("no answer")
    answer = sending.send_text(device(), request(delay=60), hold_seconds=HOLD)
    assert answer.bound == {"send_key": enqueued[0].send_key}


@pytest.fixture
def stored(monkeypatch: pytest.MonkeyPatch) -> dict[str, Send]:
    """The outbox's items by send key, for :func:`sending.state_now` to read."""
    items: dict[str, Send] = {}
    monkeypatch.setattr(outbox, "get", lambda _tenant, _device, key: items.get(key))
    return items


def a_send(state: SendState, **fields: Any) -> Send:
    send = outbox.new_send("tenant-1", "device-1", chat_jid=JID, text="hello", delay_seconds=30)
    return dataclasses.replace(send, state=state, **fields)


def test_the_state_now_of_a_bound_send(stored: dict[str, Send]) -> None:
    # Given a send queued, one sent, one failed unclearly and one refused
    queued = a_send(SendState.QUEUED)
    sent = a_send(SendState.SENT, network_message_id="3EB0N2")
    timed_out = a_send(SendState.FAILED, error="timeout: no answer", error_kind=ErrorKind.TIMEOUT)
    refused = a_send(SendState.FAILED, error="network: refused", error_kind=None)
    for send in (queued, sent, timed_out, refused):
        stored[send.send_key] = send

    def now(send: Send) -> StoredResponse | None:
        return sending.state_now(device(), {"send_key": send.send_key})

    # Then a repeat is answered: 202 while it waits (still bound), 200 once sent
    waiting = now(queued)
    assert waiting is not None
    assert (waiting.status_code, waiting.body["message_id"], waiting.bound) == (
        202,
        queued.message_id,
        {"send_key": queued.send_key},
    )
    assert now(sent) == StoredResponse(
        200,
        {
            "success": True,
            "message_id": sent.message_id,
            "status": "sent",
            "chat_jid": JID,
            "network_message_id": "3EB0N2",
        },
    )
    # And a failure as its kind answers it (a failure without a kind as the network's),
    # saying the key is bound to it
    for send, status, code in ((timed_out, 503, "SERVICE_UNAVAILABLE"), (refused, 500, "SEND_FAILED")):
        with pytest.raises(ApiError) as failed:
            now(send)
        assert (failed.value.status, failed.value.code) == (status, code)
        assert "bound to this failed send" in failed.value.message
    # And a send the outbox does not have leaves the first answer standing
    assert sending.state_now(device(), {"send_key": "unknown"}) is None


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"number": None}, "MISSING_REQUIRED_FIELDS"),
        ({"text": ""}, "MISSING_REQUIRED_FIELDS"),
        ({"text": " \u3000\n"}, "MISSING_REQUIRED_FIELDS"),
        ({"number": "+4915112345678"}, "INVALID_CHAT_JID"),
        ({"number": "lid-1@lid"}, "INVALID_CHAT_JID"),
    ],
)
def test_bad_input_is_refused_before_anything_is_enqueued(
    bus: StandInBus, enqueued: list[Send], body: dict[str, Any], code: str
) -> None:
    with pytest.raises(ApiError) as raised:
        sending.send_text(device("not_ready"), request(**body), hold_seconds=HOLD)
    assert (raised.value.status, raised.value.code) == (400, code)
    assert (enqueued, bus.sent) == ([], [])


def test_a_text_of_separator_characters_is_not_blank(bus: StandInBus, enqueued: list[Send]) -> None:
    # U+001E is no whitespace by the published pattern, though Python's strip removes it
    bus.answer = reply(ok=True, result=SENT_OUTCOME)
    assert sending.send_text(device(), request(text="\x1e"), hold_seconds=HOLD).status_code == 200


def test_a_device_not_connected_is_refused_before_anything_is_enqueued(
    bus: StandInBus, enqueued: list[Send]
) -> None:
    with pytest.raises(ApiError) as raised:
        sending.send_text(device("pairing"), request(), hold_seconds=HOLD)
    assert (raised.value.status, raised.value.code) == (503, "DEVICE_NOT_READY")
    assert (enqueued, bus.sent) == ([], [])


def test_a_202_is_only_given_once_the_send_is_in_the_outbox(
    bus: StandInBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an outbox that cannot be written
    def broken(_send: Send) -> None:
        raise RuntimeError("DynamoDB unreachable")

    monkeypatch.setattr(outbox, "store", broken)

    # When the host does not answer within the hold, Then no 202 promises a send nobody keeps:
    # an unclear 500 (the host may still send what it holds), bound to the send
    bus.answer = BusTimeout("no answer")
    with pytest.raises(Unclear) as raised:
        sending.send_text(device(), request(delay=60), hold_seconds=HOLD)
    assert (raised.value.status, raised.value.code) == (500, "INTERNAL_ERROR")

    # But when the host answers it sent the message (its claim wrote the item), that is the answer
    bus.answer = reply(ok=True, result=SENT_OUTCOME)
    answer = sending.send_text(device(), request(), hold_seconds=HOLD)
    assert (answer.status_code, answer.body["status"]) == (200, "sent")
