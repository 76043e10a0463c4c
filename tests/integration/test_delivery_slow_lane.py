"""Attacks on the delivery function's instances: a configuration whose receiver hangs is marked
slow after its first slow attempt, and its next events go to the slow lane's queue without an
attempt in the main lane, so a main batch ends within its other receivers' time; in the slow
lane its events are delivered once the receiver recovers, and the mark is lifted.

Uses the handler tests' queue of its own, receiver and helpers (``test_delivery_handler``); the
slow lane's queue is the test's own too, so the local stack's slow worker never sees it.
"""

from __future__ import annotations

import dataclasses
import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from test_delivery_handler import (  # noqa: F401 - setup is a fixture
    Setup,
    configure,
    log_of,
    publish,
    receive,
    setup,
)
from test_delivery_isolation import invoke_with

from gateway.bus.queues import sqs_client
from gateway.config import get_settings
from gateway.webhooks import store
from gateway.webhooks.delivery.constants import ATTRIBUTE_PRIOR_ATTEMPTS, SLOW_MARK_SECONDS

HANGS = "/hangs"
HOSTILE_TIMEOUT = 2  # seconds: the hanging receiver's configured timeout
OWN_TIME_PLUS = 1.0  # what the hanging receiver may add to another configuration's delivery


@pytest.fixture
def slow_lane(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> Iterator[Setup]:  # noqa: F811
    """The slow lane's queue (the test's own), named to the function as the template does."""
    sqs = sqs_client()
    url = sqs.create_queue(QueueName=f"slow-it-{uuid.uuid4().hex[:12]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    monkeypatch.setenv("SLOW_EVENTS_QUEUE_URL", url)
    get_settings.cache_clear()
    yield dataclasses.replace(setup, queue_url=url, queue_arn=arn)
    monkeypatch.undo()
    get_settings.cache_clear()
    sqs.delete_queue(QueueUrl=url)


def hanging_config(setup: Setup) -> str:  # noqa: F811 - a Setup, not the fixture
    """A device whose receiver takes longer than its timeout; its id."""
    device_id = f"{setup.device_id}-hangs"
    configure(setup, HANGS, device_id=device_id, timeout=HOSTILE_TIMEOUT, retry_attempts=3)
    setup.script.delays[HANGS] = HOSTILE_TIMEOUT + 3
    return device_id


def attempts_of(device_id: str) -> list[Any]:
    return [item for key, item in log_of(device_id).items() if key.startswith("attempt#")]


def marked_until(setup: Setup, device_id: str) -> float | None:  # noqa: F811 - a Setup
    config = store.get_config(setup.tenant_id, device_id)
    assert config is not None
    return None if config.slow_until is None else float(config.slow_until)


def moved_to(slow_lane: Setup, count: int, wait: float = 5.0) -> list[dict[str, Any]]:
    """Up to ``count`` of the test tenant's messages on the slow lane's queue. (While the test
    names its queue as the slow lane, the local stack's worker, in the same process, moves
    other tests' leftover events of slow configurations there too.)"""
    own: list[dict[str, Any]] = []
    deadline = time.monotonic() + wait
    while len(own) < count and time.monotonic() < deadline:
        for message in receive(slow_lane, count - len(own), wait=max(0.0, deadline - time.monotonic())):
            if message["MessageAttributes"]["tenant_id"]["StringValue"] == slow_lane.tenant_id:
                own.append(message)
    return own


def event_ids(messages: list[dict[str, Any]]) -> set[str]:
    return {json.loads(m["Body"])["id"] for m in messages}


def test_a_hanging_receiver_is_marked_and_its_next_events_skip_the_main_lane(
    setup: Setup,  # noqa: F811 - the fixture
    slow_lane: Setup,
) -> None:
    # Given a configuration whose receiver hangs, with one event in the main lane
    hostile = hanging_config(setup)
    first = publish(setup, device_id=hostile)

    # When its first attempt times out
    assert len(invoke_with(setup, receive(setup, 1))) == 1  # pending: a retry is scheduled

    # Then the configuration is marked slow for the next 10 minutes
    (attempt,) = attempts_of(hostile)
    assert attempt.error == f"timed out after {HOSTILE_TIMEOUT} s"
    until = marked_until(setup, hostile)
    assert until is not None
    assert abs(until - (time.time() + SLOW_MARK_SECONDS)) < 30

    # When the event's retry comes back to the main lane
    (retry,) = receive(setup, 1, wait=15)
    assert invoke_with(setup, [retry]) == set()

    # Then it is not attempted again there but moves to the slow lane, counting the attempt made
    (moved_retry,) = moved_to(slow_lane, 1)
    assert event_ids([moved_retry]) == {first["id"]}
    assert moved_retry["MessageAttributes"][ATTRIBUTE_PRIOR_ATTEMPTS]["StringValue"] == "1"
    assert len(attempts_of(hostile)) == 1

    # Given a main batch with three more of its events and one event of each of five other devices
    moved = [publish(setup, device_id=hostile)["id"] for _ in range(3)]
    for n in range(5):
        configure(setup, f"/fast{n}", device_id=f"{setup.device_id}-fast{n}")
        publish(setup, device_id=f"{setup.device_id}-fast{n}")
    batch = receive(setup, 8)
    assert len(batch) == 8

    # When the main lane handles it
    began = time.monotonic()
    failed = invoke_with(setup, batch)
    took = time.monotonic() - began

    # Then the other devices' events arrived at once and the batch ended within 1 s: the
    # hanging receiver's events were not attempted there, only moved, and left the main queue
    assert failed == set()
    assert took < OWN_TIME_PLUS, took
    assert sorted(r.path for r in setup.script.received if r.path != HANGS) == [f"/fast{n}" for n in range(5)]
    assert len(attempts_of(hostile)) == 1
    in_slow_lane = moved_to(slow_lane, 3)
    assert event_ids(in_slow_lane) == set(moved)
    # And they travel with the same body and attributes, and no attempt made yet
    for message in in_slow_lane:
        attributes = message["MessageAttributes"]
        assert attributes["tenant_id"]["StringValue"] == setup.tenant_id
        assert attributes["event"]["StringValue"] == "message.received"
        assert attributes[ATTRIBUTE_PRIOR_ATTEMPTS]["StringValue"] == "0"
    assert receive(setup, 1, wait=0.5) == []


def test_the_slow_lane_delivers_once_the_receiver_recovers_and_lifts_the_mark(
    setup: Setup,  # noqa: F811 - the fixture
    slow_lane: Setup,
) -> None:
    # Given a configuration marked slow by a timed-out attempt, and two of its events moved to
    # the slow lane: that one's retry, and a new one
    hostile = hanging_config(setup)
    first = publish(setup, device_id=hostile)
    invoke_with(setup, receive(setup, 1))
    assert invoke_with(setup, receive(setup, 1, wait=15)) == set()
    event = publish(setup, device_id=hostile)
    assert invoke_with(setup, receive(setup, 1)) == set()
    first_mark = marked_until(setup, hostile)
    assert first_mark is not None

    # When the slow lane attempts them while the receiver still hangs
    messages = moved_to(slow_lane, 2)
    assert len(invoke_with(slow_lane, messages)) == 2  # pending, retried in the slow lane

    # Then the attempts behave as in the main lane (numbered on from the main lane's, timed
    # out, retries scheduled), and the mark is set anew
    log = log_of(hostile)
    assert [(log[f"event#{e['id']}"].status, log[f"event#{e['id']}"].attempt) for e in (first, event)] == [
        ("pending", 2),
        ("pending", 1),
    ]
    renewed = marked_until(setup, hostile)
    assert renewed is not None
    assert renewed > first_mark

    # When the receiver recovers and the retries come back to the slow lane
    setup.script.delays[HANGS] = 0
    retries = moved_to(slow_lane, 2, wait=15)
    assert invoke_with(slow_lane, retries) == set()

    # Then both are delivered, as their next attempts, signed as ever, and the mark is lifted
    log = log_of(hostile)
    assert [
        (log[f"event#{e['id']}"].status, log[f"event#{e['id']}"].attempt, log[f"event#{e['id']}"].status_code)
        for e in (first, event)
    ] == [("delivered", 3, 200), ("delivered", 2, 200)]
    *_, received = [r for r in setup.script.of(HANGS) if json.loads(r.body)["id"] == event["id"]]
    assert json.loads(received.body)["signature"]
    assert marked_until(setup, hostile) is None

    # And its next event is delivered in the main lane again
    following = publish(setup, device_id=hostile)
    assert invoke_with(setup, receive(setup, 1)) == set()
    assert log_of(hostile)[f"event#{following['id']}"].status == "delivered"
    assert moved_to(slow_lane, 1, wait=0.5) == []
