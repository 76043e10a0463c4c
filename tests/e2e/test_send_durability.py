"""Scheduled sends (202) that outlive what happens before their time, over HTTP on the local
stack: the death of the host that accepted them, and a device that is not connected when
they are due. Each goes out once, when it is due, and ``message.sent`` reaches the webhook."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from device_flows import simulator
from group_flows import Phone, connected_device, contact
from waiting import wait_until

from local_stack.stack import LocalStack

pytestmark = pytest.mark.e2e

LEASE_TTL = 6.0  # tests/conftest.py gives the local stack's hosts this lease
TAKEOVER = LEASE_TTL + LEASE_TTL / 3  # a dead host's devices are run elsewhere within this


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def received(api: Any, phone: str, text: str) -> list[dict[str, Any]]:
    """The messages with ``text`` in ``phone``'s inbox."""
    inbox = simulator(api, "GET", f"/accounts/{phone}/inbox")["messages"]
    return [message for message in inbox if message["text"] == text]


def epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def schedule(api: Any, device: Phone, to: Phone, text: str, delay: int) -> dict[str, Any]:
    """A send answered 202: it is due after the hold limit (set to 1 s by the caller)."""
    body = {"number": to.phone, "text": text, "delay": delay, "disablePresence": True}
    answer = device.ok(api, "POST", "/send/text", body, status=202)
    assert answer["status"] == "scheduled", answer
    assert answer["chat_jid"] == to.jid
    return answer


def two_hosts_and_a_device(api: Any, tenant: Any, stack: LocalStack, events: Any) -> tuple[Phone, Phone]:
    """A second session host, and a connected device whose webhook collects its events; the
    device and a contact."""
    stack.start_host()
    device = connected_device(api, tenant.admin_token)
    assert device.device_id is not None
    events.subscribe(api, tenant.admin_token, device.device_id)
    return device, contact(api)


def sent_on_time_after_host_death(
    api: Any, stack: LocalStack, events: Any, device: Phone, to: Phone, text: str, answer: dict[str, Any]
) -> dict[str, Any]:
    """Kill the host that runs ``device``; then the send ``answer`` (202) named reaches ``to``
    at its ``scheduled_for``, once, and ``message.sent`` names it. The message, as received."""
    due = epoch(answer["scheduled_for"])
    (victim,) = [host for host in stack.hosts if device.device_id in host.owned_devices()]
    stack.kill_host(victim)
    (message,) = wait_until(
        lambda: received(api, to.phone, text),
        due - time.time() + TAKEOVER + 5,
        what="the scheduled message at the contact",
    )
    assert due - 0.1 <= epoch(message["timestamp"]) <= due + 3, (message, due)
    (sent,) = events.wait_for(device.device_id, "message.sent", timeout=10)
    assert sent["data"]["gateway_message_id"] == answer["message_id"]
    assert sent["data"]["message_id"] == message["message_id"]
    return message


@pytest.mark.usefixtures("one_host_after")
def test_a_scheduled_send_outlives_the_death_of_its_host_and_goes_out_once_on_time(
    api: Any, tenant: Any, stack: LocalStack, events: Any, settings_override: Callable[..., None]
) -> None:
    # Given two session hosts and a connected device whose webhook collects its events
    device, ana = two_hosts_and_a_device(api, tenant, stack, events)

    # When a send due after the takeover time is answered 202 scheduled
    settings_override(SEND_HOLD_SECONDS="1")
    delay = int(TAKEOVER) + 6
    requested_at = time.time()
    answer = schedule(api, device, ana, "see you at noon", delay)
    scheduled_for = epoch(answer["scheduled_for"])
    assert scheduled_for == pytest.approx(requested_at + delay, abs=1.5)

    # And the host that runs the device dies before that time
    # Then the message reaches the contact, on time, from the host that took the device over,
    # and message.sent, naming the gateway's id, reaches the webhook
    sent_on_time_after_host_death(api, stack, events, device, ana, "see you at noon", answer)

    # And it was sent once: a later send of the device arrives after it, and no second copy did
    device.ok(api, "POST", "/send/text", {"number": ana.phone, "text": "later", "disablePresence": True})
    assert len(received(api, ana.phone, "see you at noon")) == 1
    assert len(received(api, ana.phone, "later")) == 1


def test_a_scheduled_send_waits_for_a_disconnected_device_and_goes_when_it_is_back(
    api: Any, tenant: Any, events: Any, settings_override: Callable[..., None]
) -> None:
    # Given a connected device and a send scheduled 2 s ahead (202)
    device = connected_device(api, tenant.admin_token)
    assert device.device_id is not None
    events.subscribe(api, tenant.admin_token, device.device_id)
    ana = contact(api)
    settings_override(SEND_HOLD_SECONDS="1")
    answer = schedule(api, device, ana, "when you are back", 2)

    # When the device disconnects before that time
    device.ok(api, "POST", f"/devices/{device.device_id}/disconnect")

    # Then, while it stays disconnected past the due time, nothing is sent
    due = epoch(answer["scheduled_for"])
    wait_until(lambda: time.time() > due + 1.5, 10, what="the due time passing")
    assert received(api, ana.phone, "when you are back") == []
    assert events.of(device.device_id, "message.sent") == []

    # And once it is connected again, the message goes out, once
    device.ok(api, "POST", f"/devices/{device.device_id}/connect", status=202)
    wait_until(
        lambda: received(api, ana.phone, "when you are back"), 15, what="the message after reconnecting"
    )
    (sent,) = events.wait_for(device.device_id, "message.sent", timeout=10)
    assert sent["data"]["gateway_message_id"] == answer["message_id"]
    assert len(received(api, ana.phone, "when you are back")) == 1


@pytest.mark.usefixtures("one_host_after")
def test_a_planned_send_outlives_the_death_of_its_host_and_goes_out_once_on_time(
    api: Any, tenant: Any, stack: LocalStack, events: Any
) -> None:
    # Given two session hosts and a connected device whose webhook collects its events
    device, ana = two_hosts_and_a_device(api, tenant, stack, events)

    # When a send planned (send_at) for after the takeover time is answered 202 at once
    send_at = datetime.fromtimestamp(time.time() + TAKEOVER + 4).astimezone()
    body = {"number": ana.phone, "text": "planned", "send_at": send_at.isoformat(), "disablePresence": True}
    answer = device.ok(api, "POST", "/send/text", body, status=202)
    assert epoch(answer["scheduled_for"]) == pytest.approx(send_at.timestamp(), abs=0.01)

    # And the host that holds it (it runs the device) dies before that time
    # Then the message reaches the contact on time, from the host that took the device over
    sent_on_time_after_host_death(api, stack, events, device, ana, "planned", answer)

    # And it was sent once: a later send arrives after it, and no second copy did
    device.ok(api, "POST", "/send/text", {"number": ana.phone, "text": "after", "disablePresence": True})
    assert len(received(api, ana.phone, "planned")) == 1
    assert device.ok(api, "GET", f"/sends/{answer['message_id']}")["state"] == "sent"
