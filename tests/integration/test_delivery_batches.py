"""Delivery of whole batches: the delivery log written in batches (and what happens when it is
not), retries scheduled for many events at once, connections reused, slow receivers isolated.

Uses the handler tests' queue of its own, receiver and helpers (``test_delivery_handler``).
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from loopback_receiver import loopback_receiver
from test_delivery_handler import (  # noqa: F401 - setup is a fixture
    CLOCKS,
    SEEN_WITHIN,
    Setup,
    configure,
    invoke,
    log_of,
    publish,
    receive,
    setup,
)
from waiting import PROMPTLY

from gateway.bus.queues import sqs_client
from gateway.models.webhooks import DeliveryModel
from gateway.retries import DELIVERY_LOG_WRITE
from gateway.webhooks.delivery import recorder
from gateway.webhooks.delivery.transport import Transport

MALFORMED = "{not json"  # a record body that is not an envelope


class Flaky:
    """The process's DynamoDB client, but leaving log items unprocessed (or failing) as told."""

    def __init__(self, real: Any, unprocessed_rounds: int = 0, fail: bool = False) -> None:
        self.real, self.unprocessed_rounds, self.fail = real, unprocessed_rounds, fail
        self.calls: list[int] = []

    def batch_write_item(self, RequestItems: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:  # noqa: N803
        ((table, requests),) = RequestItems.items()
        assert table == DeliveryModel.Meta.table_name
        self.calls.append(len(requests))
        if self.fail:
            raise RuntimeError("DynamoDB is unavailable")
        if len(self.calls) <= self.unprocessed_rounds:  # write the first half, hand back the rest
            kept, left = requests[: len(requests) // 2], requests[len(requests) // 2 :]
            if kept:
                self.real.batch_write_item(RequestItems={table: kept})
            return {"UnprocessedItems": {table: left}}
        return self.real.batch_write_item(RequestItems=RequestItems)


class FlakyConnection:
    """The process's one DynamoDB connection, as the recorder asks for it, with a flaky client."""

    def __init__(self, client: Flaky) -> None:
        self.client = client


def flaky_log(monkeypatch: pytest.MonkeyPatch, **behaviour: Any) -> Flaky:
    flaky = Flaky(recorder.transaction_connection().client, **behaviour)
    monkeypatch.setattr(recorder, "transaction_connection", lambda: FlakyConnection(flaky))
    return flaky


def test_a_batchs_log_is_written_25_items_at_a_time_and_unprocessed_items_again(
    setup: Setup,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given 20 events (40 log items) and DynamoDB leaving half of each write unprocessed twice
    configure(setup, "/ok")
    envelopes = [publish(setup) for _ in range(20)]
    messages = receive(setup, 20)
    flaky = flaky_log(monkeypatch, unprocessed_rounds=2)

    # When the batch is delivered
    failed = invoke(setup, messages)

    # Then every event and attempt is logged, in writes of at most 25 items, and done with
    assert failed == set()
    assert max(flaky.calls) <= 25
    assert sum(flaky.calls) > 40  # the unprocessed ones were written again
    log = log_of(setup.device_id)
    assert all(log[f"event#{e['id']}"].status == "delivered" for e in envelopes)
    assert sum(key.startswith("attempt#") for key in log) == 20


def test_an_event_whose_log_cannot_be_written_stays_on_the_queue(
    setup: Setup,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given DynamoDB refusing the log's writes
    configure(setup, "/ok", retry_attempts=0)
    envelope = publish(setup)
    (message,) = receive(setup, 1)
    flaky = flaky_log(monkeypatch, fail=True)

    # When the event is delivered (the receiver gets it) but cannot be logged
    failed = invoke(setup, [message])

    # Then the record is kept: the event is not lost, it is attempted again when it comes back
    assert failed == {message["MessageId"]}
    assert len(setup.script.of("/ok")) == 1
    assert log_of(setup.device_id) == {}

    # And items left unprocessed round after round keep it too
    flaky.fail, flaky.unprocessed_rounds = False, (DELIVERY_LOG_WRITE.attempts or 0) * 2
    assert invoke(setup, [message]) == {message["MessageId"]}

    # When DynamoDB is back, the next attempt is delivered and logged, and the record done with
    monkeypatch.undo()
    assert invoke(setup, [message]) == set()
    assert log_of(setup.device_id)[f"event#{envelope['id']}"].status == "delivered"


def test_the_failed_events_of_a_batch_all_come_back_after_their_delay(
    setup: Setup,  # noqa: F811 - the fixture
) -> None:
    # Given a receiver answering 500 and more failing events than one visibility batch holds
    configure(setup, "/down", retry_attempts=3)
    setup.script.statuses["/down"] = [500]
    envelopes = [publish(setup) for _ in range(12)]
    messages = receive(setup, 12)

    # When their first attempts fail
    began = time.monotonic()
    failed = invoke(setup, messages)

    # Then each is kept and pending, and comes back as its second attempt, not before 1 s
    assert failed == {m["MessageId"] for m in messages}
    log = log_of(setup.device_id)
    assert {log[f"event#{e['id']}"].status for e in envelopes} == {"pending"}
    back = receive(setup, 12, wait=1.0 + SEEN_WITHIN + 5)
    assert time.monotonic() - began >= 1.0 - CLOCKS
    assert len(back) == 12
    assert {m["Attributes"]["ApproximateReceiveCount"] for m in back} == {"2"}


def test_connections_to_a_receiver_are_kept_and_shared_by_attempts() -> None:
    transport = Transport(None)
    with loopback_receiver() as (port, script):
        url = f"http://127.0.0.1:{port}/in"
        # One attempt after another, each from a thread of its own
        for _ in range(5):
            with ThreadPoolExecutor(1) as thread:
                assert thread.submit(lambda: transport.post(url, b"{}", {}, 5.0).result().ok).result()
        # Then, many at once
        burst = [transport.post(url, b"{}", {}, 5.0) for _ in range(30)]
        assert all(attempt.result().ok for attempt in burst)

        # The sequential ones used one connection, and the next ones reuse those of the burst
        sequential = {r.client for r in script.received[:5]}
        assert len(sequential) == 1
        before = {r.client for r in script.received}
        for _ in range(10):
            assert transport.post(url, b"{}", {}, 5.0).result().ok
        assert {r.client for r in script.received[-10:]} <= before
    assert len(script.received) == 45


def test_a_slow_receiver_with_many_events_does_not_hold_up_another(
    setup: Setup,  # noqa: F811 - the fixture
) -> None:
    # Given one batch: 20 events for a receiver taking 4 s (20 connections busy for 4 s) and
    # 20 for a fast receiver elsewhere
    slow_answer = 4.0
    slow_device, fast_device = f"{setup.device_id}-slow", f"{setup.device_id}-fast"
    configure(setup, "/slow", device_id=slow_device, timeout=10)
    setup.script.delays["/slow"] = slow_answer
    with loopback_receiver() as (fast_port, fast):
        configure(setup, "/fast", device_id=fast_device, webhook_url=f"http://127.0.0.1:{fast_port}/fast")
        for _ in range(20):
            publish(setup, device_id=slow_device)
            publish(setup, device_id=fast_device)
        messages = receive(setup, 40)
        assert len(messages) == 40

        # When the batch is handled
        began = time.monotonic()
        failed = invoke(setup, messages)
        took = time.monotonic() - began

        # Then the fast receiver had all its events before the slow one answered any, and the
        # slow one's events went at once too (a connection each): the batch took about one slow
        # answer
        assert failed == set()
        assert len(fast.of("/fast")) == 20
        assert max(r.at for r in fast.of("/fast")) - began < slow_answer
        assert len(setup.script.of("/slow")) == 20
        assert slow_answer <= took < slow_answer + PROMPTLY  # in two rounds (10 connections) 8 s


def test_a_mixed_batch_keeps_only_retries_and_malformed_records_and_counts_each_outcome(
    setup: Setup,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Given one batch: delivered, retried, exhausted, unsubscribed and malformed records
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    devices = {name: f"{setup.device_id}-{name}" for name in ("ok", "retried", "exhausted", "unsubscribed")}
    configure(setup, "/ok", device_id=devices["ok"])
    configure(setup, "/down", device_id=devices["retried"], retry_attempts=3)
    configure(setup, "/down", device_id=devices["exhausted"], retry_attempts=0)
    setup.script.statuses["/down"] = [500]
    counts = {"ok": 3, "retried": 2, "exhausted": 1, "unsubscribed": 1}
    sent = {
        name: [publish(setup, device_id=devices[name])["id"] for _ in range(count)]
        for name, count in counts.items()
    }
    sqs_client().send_message(QueueUrl=setup.queue_url, MessageBody=MALFORMED)
    messages = receive(setup, 8)
    assert len(messages) == 8
    capsys.readouterr()

    # When it is delivered
    failed = invoke(setup, messages)

    # Then SQS keeps the retried events and the malformed record, and nothing else
    kept = {
        None if m["Body"] == MALFORMED else json.loads(m["Body"])["id"]
        for m in messages
        if m["MessageId"] in failed
    }
    assert kept == {*sent["retried"], None}

    # And the invocation published each outcome once, with its count
    documents = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    webhook = [d for d in documents if any(name.startswith("Webhook") for name in d)]
    assert len(webhook) == 1
    assert {name: value for name, value in webhook[0].items() if name.startswith("Webhook")} == {
        "WebhookEventsDelivered": [3.0],
        "WebhookAttemptsRetried": [2.0],
        "WebhookEventsExhausted": [1.0],
        "WebhookEventsUnsubscribed": [1.0],
    }
