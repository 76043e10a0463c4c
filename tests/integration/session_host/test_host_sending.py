"""Sends from the outbox through real session hosts (moto + the simulated network): dispatch,
pacing seen by the recipient, SEND_TEXT's sent and scheduled answers, other devices not
held up, and a takeover between a scheduled answer and its dispatch."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from host_harness import LEASE_TTL, Harness, wait_until

from gateway.bus import CommandName, Reply
from gateway.messages import outbox
from gateway.messages.sends import Send, SendState
from session_host.network.simulated import SimulatedPort
from session_host.sending.sender import INTERRUPTED

RECIPIENT = "15550002222"
RECIPIENT_JID = f"{RECIPIENT}@s.whatsapp.net"


def _at(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _messages(harness: Harness, text: str) -> list[dict[str, Any]]:
    return [m for m in harness.network.inbox(RECIPIENT)["messages"] if m["text"] == text]


def _enqueue(device: Any, text: str, **pacing: Any) -> Send:
    send = outbox.new_send(device.tenant_id, device.device_id, chat_jid=RECIPIENT_JID, text=text, **pacing)
    outbox.store(send)
    return send


def _send_text(harness: Harness, device: Any, send: Send, timeout: float = 10.0) -> Reply:
    return harness.send(CommandName.SEND_TEXT, device, timeout=timeout, send_key=send.send_key)


def _stored(send: Send) -> Send:
    stored = outbox.get(send.tenant_id, send.device_id, send.send_key)
    assert stored is not None
    return stored


def test_a_send_is_dispatched_once_after_its_typing_and_message_sent_follows(harness: Harness) -> None:
    # Given a connected device and a contact on the network
    harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)
    harness.network.create_account(RECIPIENT)

    # When a send with 0.5 s of typing is enqueued and SEND_TEXT asks for it
    send = _enqueue(device, "hello there", typing_seconds=0.5)
    reply = _send_text(harness, device, send)

    # Then the answer is "sent" with the gateway's id, after composing ~0.5 s then paused
    assert reply.ok, reply
    assert reply.result["status"] == "sent"
    assert reply.result["message_id"] == send.message_id
    assert reply.result["chat_jid"] == RECIPIENT_JID
    (message,) = _messages(harness, "hello there")
    presence = [(p["state"], _at(p["at"])) for p in harness.network.inbox(RECIPIENT)["presence"]]
    assert [state for state, _ in presence] == ["composing", "paused"]
    assert presence[1][1] - presence[0][1] >= 0.45
    assert presence[1][1] <= _at(message["timestamp"]) + 0.001
    sent = harness.events.wait_for(device.device_id, "message.sent")["envelope"]["data"]
    assert sent["message_id"] == message["message_id"]
    assert sent["gateway_message_id"] == send.message_id
    assert _stored(send).state is SendState.SENT


def test_send_text_answers_scheduled_past_its_deadline_and_the_send_still_goes(harness: Harness) -> None:
    # Given a connected device
    harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)
    harness.network.create_account(RECIPIENT)

    # When a send delayed by 3 s is asked with a 1.5 s deadline, without presence
    send = _enqueue(device, "later", delay_seconds=3, disable_presence=True)
    reply = _send_text(harness, device, send, timeout=1.5)

    # Then the answer is "scheduled" for its time, and it goes out then, once
    assert reply.ok, reply
    assert reply.result["status"] == "scheduled"
    assert abs(_at(reply.result["scheduled_for"]) - send.not_before) < 0.5
    harness.events.wait_for(device.device_id, "message.sent")
    (message,) = _messages(harness, "later")
    assert _at(message["timestamp"]) >= send.not_before - 0.05
    assert harness.network.inbox(RECIPIENT)["presence"] == []


def test_a_waiting_send_holds_up_neither_another_device_nor_a_later_send_of_its_own(harness: Harness) -> None:
    # Given two connected devices, the first with a send due in 3 s whose SEND_TEXT is waiting
    harness.hosts.start()
    first, second = harness.new_device(), harness.new_device()
    harness.pair(first, "15550001111")
    harness.pair(second, "15550003333")
    harness.network.create_account(RECIPIENT)
    delayed = _enqueue(first, "in a while", delay_seconds=3, disable_presence=True)
    with ThreadPoolExecutor(max_workers=1) as pool:
        waiting = pool.submit(_send_text, harness, first, delayed, 10.0)

        # When each device is asked for a send without delay meanwhile
        mine = _enqueue(first, "first device now", disable_presence=True)
        other = _enqueue(second, "second device now", disable_presence=True)
        replies = [_send_text(harness, first, mine, 5.0), _send_text(harness, second, other, 5.0)]

        # Then both are sent at once, while the delayed one is still waited for, and sent later
        assert [reply.result["status"] for reply in replies] == ["sent", "sent"]
        assert not waiting.done()
        assert _stored(delayed).state is SendState.QUEUED
        assert waiting.result(timeout=10).result["status"] == "sent"
    texts = [m["text"] for m in harness.network.inbox(RECIPIENT)["messages"]]
    assert texts.index("first device now") < texts.index("in a while")


def test_a_scheduled_send_survives_its_host_dying_and_arrives_once(harness: Harness) -> None:
    # Given host A runs a connected device with a send answered "scheduled", and host B beside it
    port = SimulatedPort(harness.network)
    dead = harness.hosts.start(port=port)
    device = harness.new_device()
    harness.pair(device)
    harness.network.create_account(RECIPIENT)
    survivor = harness.hosts.start()
    send = _enqueue(device, "survives", delay_seconds=LEASE_TTL, disable_presence=True)
    assert _send_text(harness, device, send, timeout=1).result["status"] == "scheduled"

    # When A dies before the send's time
    harness.hosts.kill(dead)
    port.crash()

    # Then B takes the device over and the send arrives, once, followed by message.sent
    wait_until(
        lambda: survivor.host.owned_devices() == {device.device_id}, timeout=LEASE_TTL * 4, what="takeover"
    )
    harness.events.wait_for(device.device_id, "message.sent", timeout=LEASE_TTL * 4)
    assert len(_messages(harness, "survives")) == 1
    assert _stored(send).state is SendState.SENT
    assert len(harness.events.of(device.device_id, "message.sent")) == 1


def test_a_send_left_mid_dispatch_by_a_dead_host_is_failed_not_resent(harness: Harness) -> None:
    # Given a send that a host claimed and never finished (it died in the network call)
    device = harness.new_device()
    send = _enqueue(device, "maybe out", disable_presence=True)
    assert outbox.claim(send, 1)

    # When a host connects the device
    harness.hosts.start()
    harness.pair(device)

    # Then the send is failed as interrupted and the network never gets it (again)
    wait_until(lambda: _stored(send).state is SendState.FAILED, what="interrupted send failed")
    assert _stored(send).error == INTERRUPTED
    assert _send_text(harness, device, send).ok is False
