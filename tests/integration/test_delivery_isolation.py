"""Attacks on the delivery function through its receivers and its time: a receiver that trickles
its TLS handshake, hangs, never completes a connection or refuses delays no other
configuration's deliveries, and an invocation whose time runs out gives back what it could not
attempt, without sending anything twice.

Uses the handler tests' queue of its own, receiver and helpers (``test_delivery_handler``).
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

import pytest
from hostile_receivers import closed_port, filtered, hanging, trickling_tls
from test_delivery_handler import (  # noqa: F401 - setup is a fixture
    INVOKER,
    Setup,
    configure,
    log_of,
    publish,
    receive,
    setup,
)

from gateway.webhooks import store
from gateway.webhooks.delivery.constants import RETURN_MARGIN_SECONDS, SETTLE_RESERVE_SECONDS
from local_stack.delivery_worker import LambdaContext, lambda_record
from webhook_delivery.handler import handler

HOSTILE_TIMEOUT = 2  # seconds, the hostile receivers' configured timeout
OWN_TIME_PLUS = 1.0  # what a hostile receiver may add to another configuration's delivery


def invoke_with(queue: Setup, messages: list[dict[str, Any]], seconds: float = 60) -> set[str]:
    """Run the handler on the messages with ``seconds`` of the function's time left; the ids
    of the records it reports as failed."""
    region = queue.queue_arn.split(":")[3]
    event = {"Records": [lambda_record(m, queue.queue_arn, region) for m in messages]}
    with ThreadPoolExecutor(1, thread_name_prefix=INVOKER) as invoker:
        response = invoker.submit(handler, event, LambdaContext(timeout=seconds)).result()
    return {failure["itemIdentifier"] for failure in response.get("batchItemFailures", [])}


SLOW_NAME, DEAD_NAME = "slow-dns.hostile.example", "dead.hostile.example"
LOOPBACKS = ("127.0.0.1", "127.0.0.2", "127.0.0.3")


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """URLs of receivers that misbehave, by how: among them a name whose resolver takes 10 s
    and a name whose three addresses never complete a connection."""
    with ExitStack() as stack:
        trickler = stack.enter_context(trickling_tls())
        hung = stack.enter_context(hanging())
        dropped = stack.enter_context(filtered(LOOPBACKS))
        real = socket.getaddrinfo

        def resolve(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            if host == SLOW_NAME:
                time.sleep(10)
            if host == DEAD_NAME:
                return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in LOOPBACKS]
            return real(host, port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", resolve)
        yield {
            "trickles-tls": f"https://localhost:{trickler.port}/in",
            "hangs": f"http://127.0.0.1:{hung.port}/in",
            "never-connects": f"http://{DEAD_NAME}:{dropped}/in",
            "resolves-slowly": f"http://{SLOW_NAME}/in",
            "refuses": f"http://127.0.0.1:{closed_port()}/in",
        }


def message_of(messages: list[dict[str, Any]]) -> Callable[[str], str]:
    """Event id -> the message id of the record that carries it."""
    ids = {json.loads(m["Body"])["id"]: m["MessageId"] for m in messages}
    return ids.__getitem__


def test_hostile_receivers_in_a_batch_delay_no_other_configurations_delivery(
    setup: Setup,  # noqa: F811 - the fixture
    hostile: dict[str, str],
) -> None:
    # Given one batch: three events for each hostile receiver and one for each of five devices
    # whose receivers answer at once
    for how, url in hostile.items():
        configure(
            setup, "/unused", device_id=f"{setup.device_id}-{how}", webhook_url=url, timeout=HOSTILE_TIMEOUT
        )
        for _ in range(3):
            publish(setup, device_id=f"{setup.device_id}-{how}")
    fast = [f"{setup.device_id}-fast{n}" for n in range(5)]
    for n, device_id in enumerate(fast):
        configure(setup, f"/fast{n}", device_id=device_id)
        publish(setup, device_id=device_id)
    messages = receive(setup, 20)
    assert len(messages) == 20

    # When the batch is handled
    began = time.monotonic()
    failed = invoke_with(setup, messages)
    took = time.monotonic() - began

    # Then every fast receiver had its event within its own time plus 1 s of the start
    assert len(setup.script.received) == 5
    assert max(r.at for r in setup.script.received) - began < OWN_TIME_PLUS
    # And each hostile attempt was cut at its timeout, so the batch took about that timeout
    hostile_devices = [f"{setup.device_id}-{how}" for how in hostile]
    attempts = {
        how: [item for key, item in log_of(device_id).items() if key.startswith("attempt#")]
        for how, device_id in zip(hostile, hostile_devices, strict=True)
    }
    errors = {how: {item.error for item in items} for how, items in attempts.items()}
    timed_out = {f"timed out after {HOSTILE_TIMEOUT} s"}
    assert errors == {
        "trickles-tls": timed_out,
        "hangs": timed_out,
        "never-connects": timed_out,
        "resolves-slowly": timed_out,
        "refuses": {"connection failed: Connection refused"},
    }
    assert (
        max(item.duration_ms for items in attempts.values() for item in items) < HOSTILE_TIMEOUT * 1000 + 500
    )
    assert took < HOSTILE_TIMEOUT + OWN_TIME_PLUS
    # And only the hostile receivers' events stay, for their retries
    assert len(failed) == 15


def test_an_invocation_held_by_hostile_receivers_delays_no_other_invocation(
    setup: Setup,  # noqa: F811 - the fixture
    hostile: dict[str, str],
) -> None:
    # Given a batch of events for the hostile receivers only, eight each, being handled (no
    # retries: their records do not come back to the queue while the test runs)
    for how, url in hostile.items():
        device_id = f"{setup.device_id}-{how}"
        configure(
            setup, "/unused", device_id=device_id, webhook_url=url, timeout=HOSTILE_TIMEOUT, retry_attempts=0
        )
        for _ in range(8):
            publish(setup, device_id=device_id)
    held = receive(setup, 40)
    assert len(held) == 40
    configure(setup, "/fast", device_id=f"{setup.device_id}-fast")
    with ThreadPoolExecutor(2) as invocations:
        began = time.monotonic()
        first = invocations.submit(invoke_with, setup, held)

        # When a batch for another configuration is handled meanwhile, as a concurrent invocation
        publish(setup, device_id=f"{setup.device_id}-fast")
        second = invocations.submit(invoke_with, setup, receive(setup, 1))

        # Then its event is delivered at once, long before the hostile attempts end
        assert second.result() == set()
        (delivered,) = setup.script.of("/fast")
        assert delivered.at - began < OWN_TIME_PLUS
        assert not first.done()
        assert first.result() == set()  # attempted, failed, logged: done with


def test_what_would_outlast_the_invocation_goes_back_unattempted_and_nothing_is_sent_twice(
    setup: Setup,  # noqa: F811 - the fixture
) -> None:
    # Given an invocation with 8 s left, so attempts must end within 8 - 1 - 4 = 3 s: three
    # events of a configuration with a 2 s timeout, two of one with a 5 s timeout
    left = RETURN_MARGIN_SECONDS + SETTLE_RESERVE_SECONDS + 3
    short, long = f"{setup.device_id}-short", f"{setup.device_id}-long"
    configure(setup, "/short", device_id=short, timeout=2)
    configure(setup, "/long", device_id=long, timeout=5)
    delivered = [publish(setup, device_id=short)["id"] for _ in range(3)]
    deferred = [publish(setup, device_id=long)["id"] for _ in range(2)]
    messages = receive(setup, 5)
    assert len(messages) == 5
    message = message_of(messages)

    # When the batch is handled
    failed = invoke_with(setup, messages, seconds=left)

    # Then the events that fit are delivered and done with; the others are failed records,
    # unattempted: nothing reached their receiver and nothing is logged for them
    assert failed == {message(event_id) for event_id in deferred}
    assert len(setup.script.of("/short")) == 3
    assert setup.script.of("/long") == []
    assert log_of(long) == {}
    assert {log_of(short)[f"event#{event_id}"].status for event_id in delivered} == {"delivered"}

    # And they are back on the queue at once, alone, and delivered by the next invocation
    again = receive(setup, 5, wait=3.0)
    assert sorted(json.loads(m["Body"])["id"] for m in again) == sorted(deferred)
    assert invoke_with(setup, again) == set()
    assert len(setup.script.of("/long")) == 2
    assert len(setup.script.of("/short")) == 3  # never sent again


def test_a_record_unfinished_when_the_invocation_must_return_is_failed_not_timed_out(
    setup: Setup,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given an invocation with 7 s left (it must return within 6 s), one event whose
    # configuration takes 10 s to read (a stalled DynamoDB), and one of another device
    slow, fast = f"{setup.device_id}-slow", f"{setup.device_id}-fast"
    configure(setup, "/slow", device_id=slow, timeout=1)
    configure(setup, "/fast", device_id=fast, timeout=1)
    stalled = publish(setup, device_id=slow)
    publish(setup, device_id=fast)
    messages = receive(setup, 2)
    read = store.get_config

    def stalling(tenant_id: str, device_id: str) -> Any:
        if device_id == slow:
            time.sleep(10)
        return read(tenant_id, device_id)

    monkeypatch.setattr(store, "get_config", stalling)

    # When the batch is handled
    began = time.monotonic()
    failed = invoke_with(setup, messages, seconds=7)

    # Then the invocation returns before its time is up, with that record failed (it stays on
    # the queue) and the other one delivered
    assert time.monotonic() - began < 7
    assert failed == {message_of(messages)(stalled["id"])}
    assert len(setup.script.of("/fast")) == 1
    assert setup.script.of("/slow") == []
