"""The delivery function's handler against the local stack's tables (moto) and a queue of its
own, with a real receiver on loopback: what it delivers, logs, retries and reports.

Each test sends envelopes to its own SQS queue, receives them as the event source mapping
would and invokes ``webhook_delivery.handler.handler`` with the SQS event, so the local
delivery worker (which reads the stack's events queue) never sees them.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import botocore.client
import pytest
from loopback_receiver import Script, loopback_receiver
from waiting import PROMPTLY

from gateway.bus.queues import sqs_client
from gateway.models.webhooks import DeliveryModel, WebhookModel
from gateway.webhooks.delivery import batch, service
from gateway.webhooks.delivery.constants import DELIVERY_THREAD_PREFIX, RETENTION_SECONDS
from local_stack.delivery_worker import LambdaContext, lambda_record
from local_stack.stack import LocalStack
from webhook_delivery.handler import handler


@dataclass
class Setup:
    tenant_id: str
    device_id: str
    queue_url: str
    queue_arn: str
    port: int
    script: Script

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def setup(stack: LocalStack) -> Iterator[Setup]:
    sqs = sqs_client()
    queue_url = sqs.create_queue(QueueName=f"delivery-it-{uuid.uuid4().hex[:12]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    with loopback_receiver() as (port, script):
        yield Setup(f"t-{uuid.uuid4().hex[:8]}", f"d-{uuid.uuid4().hex[:8]}", queue_url, arn, port, script)
    sqs.delete_queue(QueueUrl=queue_url)


def configure(setup: Setup, path: str, device_id: str | None = None, **overrides: Any) -> WebhookModel:
    values: dict[str, Any] = {
        "webhook_id": str(uuid.uuid4()),
        "webhook_url": setup.url(path),
        "enabled_events": {"message"},
        "enabled": True,
        "retry_attempts": 3,
        "timeout": 5,
        "secret": "s3cret",
        "headers": {},
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
        **overrides,
    }
    config = WebhookModel(setup.tenant_id, device_id or setup.device_id, **values)
    config.save()
    return config


def publish(setup: Setup, event: str = "message.received", device_id: str | None = None) -> dict[str, Any]:
    envelope = {
        "id": uuid.uuid4().hex,
        "event": event,
        "timestamp": int(time.time()),
        "device_id": device_id or setup.device_id,
        "data": {"content": "hi"},
    }
    sqs_client().send_message(
        QueueUrl=setup.queue_url,
        MessageBody=json.dumps(envelope),
        MessageAttributes={
            "tenant_id": {"DataType": "String", "StringValue": setup.tenant_id},
            "event": {"DataType": "String", "StringValue": event},
        },
    )
    return envelope


def receive(setup: Setup, count: int, wait: float = 5.0) -> list[dict[str, Any]]:
    """Up to ``count`` messages, waiting up to ``wait`` seconds for the first."""
    messages: list[dict[str, Any]] = []
    deadline = time.monotonic() + wait
    while len(messages) < count and time.monotonic() < deadline:
        messages += (
            sqs_client()
            .receive_message(
                QueueUrl=setup.queue_url,
                MaxNumberOfMessages=min(10, count - len(messages)),
                WaitTimeSeconds=0,
                MessageSystemAttributeNames=["All"],
                MessageAttributeNames=["All"],
            )
            .get("Messages", [])
        )
        if len(messages) < count:
            time.sleep(0.05)
    return messages


INVOKER = "test-invoker"


def invoke(setup: Setup, messages: list[dict[str, Any]]) -> set[str]:
    """Run the handler on the messages; the message ids it reports as failed.

    On a thread of its own, as the local worker does: outside Lambda the batch processor runs
    its loop with ``asyncio.run``, which leaves the calling thread without an event loop (and
    the Mangum-wrapped handlers other tests call on the main thread need one).
    """
    region = setup.queue_arn.split(":")[3]
    event = {"Records": [lambda_record(m, setup.queue_arn, region) for m in messages]}
    with ThreadPoolExecutor(1, thread_name_prefix=INVOKER) as invoker:
        response = invoker.submit(handler, event, LambdaContext()).result()
    return {failure["itemIdentifier"] for failure in response.get("batchItemFailures", [])}


def log_of(device_id: str) -> dict[str, DeliveryModel]:
    return {item.delivery_key: item for item in DeliveryModel.query(device_id, consistent_read=True)}


def test_a_delivered_event_is_acknowledged_and_logged(setup: Setup) -> None:
    # Given a configuration and an event on the queue
    configure(setup, "/ok")
    envelope = publish(setup)

    # When the handler processes it
    failed = invoke(setup, receive(setup, 1))

    # Then it was delivered once, not reported as failed, and logged with its envelope
    assert failed == set()
    (received,) = setup.script.of("/ok")
    assert json.loads(received.body)["id"] == envelope["id"]
    log = log_of(setup.device_id)
    event_item = log[f"event#{envelope['id']}"]
    assert (event_item.status, event_item.attempt, event_item.status_code) == ("delivered", 1, 200)
    assert json.loads(event_item.envelope) == envelope  # unsigned, as published: what redelivery sends
    assert event_item.tenant_id == setup.tenant_id
    assert abs(event_item.expires_at - (time.time() + RETENTION_SECONDS)) < 60
    (attempt_key,) = [key for key in log if key.startswith("attempt#")]
    assert attempt_key.endswith(f"#{envelope['id']}#01")
    assert len(attempt_key.split("#")[1]) == 13
    attempt = log[attempt_key]
    assert (attempt.status, attempt.status_code, attempt.webhook_url) == ("delivered", 200, setup.url("/ok"))
    assert attempt.duration_ms >= 0
    assert attempt.attempted_at.endswith("Z")


def failed_and_back(setup: Setup, message: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Invoke the handler on ``message``, whose attempt fails; then wait for the message to
    come back. (Seconds from the invocation's start to its return, seconds from the start
    to the message's return, the message as received again.)

    The handler sets the backoff (the message's visibility) somewhere inside the invocation,
    so the message cannot come back sooner than the backoff after the start, nor (but for
    the time it takes to see it) later than the backoff after the return. Only the first
    bound is exact; the second allows :data:`SEEN_WITHIN` for a busy machine to poll.
    """
    began = time.monotonic()
    assert invoke(setup, [message]) == {message["MessageId"]}
    returned = time.monotonic() - began
    (again,) = receive(setup, 1, wait=BACK_WITHIN)
    return returned, time.monotonic() - began, again


BACK_WITHIN = 20.0  # seconds: far beyond any backoff here, far below the queue's 120 s
CLOCKS = 0.05  # seconds: moto's clock (time.time) against the test's (time.monotonic)
SEEN_WITHIN = 3.0  # seconds for a busy machine to receive a message once it is visible


def test_a_failed_attempt_comes_back_after_as_many_seconds_as_its_number(setup: Setup) -> None:
    # Given a receiver answering 500
    configure(setup, "/down", retry_attempts=3)
    setup.script.statuses["/down"] = [500]
    envelope = publish(setup)

    # When the first attempt fails
    (message,) = receive(setup, 1)
    took, back_after, again = failed_and_back(setup, message)

    # Then the event is pending, and the message comes back as the second attempt, not
    # before 1 s after the first attempt began
    assert log_of(setup.device_id)[f"event#{envelope['id']}"].status == "pending"
    assert 1.0 - CLOCKS <= back_after < took + 1.0 + SEEN_WITHIN, (took, back_after)
    assert again["Attributes"]["ApproximateReceiveCount"] == "2"

    # And after the second failure it comes back as the third, not before 2 s
    took, back_after, third = failed_and_back(setup, again)
    assert 2.0 - CLOCKS <= back_after < took + 2.0 + SEEN_WITHIN, (took, back_after)
    assert third["Attributes"]["ApproximateReceiveCount"] == "3"


def test_after_the_last_retry_the_event_is_logged_as_failed_and_leaves_the_queue(setup: Setup) -> None:
    # Given a configuration without retries and a receiver answering 503
    configure(setup, "/down", retry_attempts=0)
    setup.script.statuses["/down"] = [503]
    envelope = publish(setup)

    # When the only attempt fails
    failed = invoke(setup, receive(setup, 1))

    # Then the record is reported as processed (SQS deletes it) and the event is kept as failed
    assert failed == set()
    event_item = log_of(setup.device_id)[f"event#{envelope['id']}"]
    assert (event_item.status, event_item.status_code) == ("failed", 503)
    assert event_item.error == "receiver answered HTTP 503"
    assert event_item.envelope


@pytest.mark.parametrize(
    "configuration",
    [{"enabled": False}, {"enabled_events": {"device.connected"}}, None],
    ids=["disabled", "not-subscribed", "no-configuration"],
)
def test_an_event_nobody_subscribed_to_is_dropped_without_a_trace(
    setup: Setup, configuration: dict[str, Any] | None
) -> None:
    # Given a configuration that does not want message.received, or none
    if configuration is not None:
        configure(setup, "/in", **configuration)
    publish(setup)

    # When the handler processes the event
    failed = invoke(setup, receive(setup, 1))

    # Then nothing is sent, nothing logged, and the record is done with
    assert failed == set()
    assert setup.script.received == []
    assert log_of(setup.device_id) == {}


def test_a_deleted_configuration_stops_delivery_at_once(setup: Setup) -> None:
    # Given events queued for a configuration that is then deleted
    config = configure(setup, "/in")
    publish(setup)
    config.delete()

    # When they are processed
    failed = invoke(setup, receive(setup, 1))

    # Then nothing is delivered
    assert failed == set()
    assert setup.script.received == []


def test_a_record_that_is_not_an_envelope_stays_on_the_queue(setup: Setup) -> None:
    sqs_client().send_message(QueueUrl=setup.queue_url, MessageBody="{not json")
    (message,) = receive(setup, 1)
    assert invoke(setup, [message]) == {message["MessageId"]}


def test_one_slow_receiver_does_not_hold_up_the_rest_of_the_batch(setup: Setup) -> None:
    # Given nine devices with a fast receiver and one whose receiver takes 4 s
    slow_answer = 4.0
    devices = [f"{setup.device_id}-{n}" for n in range(10)]
    for n, device_id in enumerate(devices):
        configure(setup, f"/d{n}", device_id=device_id, timeout=10)
    setup.script.delays["/d0"] = slow_answer
    for device_id in devices:
        publish(setup, device_id=device_id)
    messages = receive(setup, 10)
    assert len(messages) == 10

    # When the batch is handled
    began = time.monotonic()
    failed = invoke(setup, messages)
    took = time.monotonic() - began

    # Then the nine fast deliveries all arrived before the slow receiver could have answered
    # (so none waited behind it), and the batch took about the slow one, not a sum of them
    assert failed == set()
    fast = [r for r in setup.script.received if r.path != "/d0"]
    assert len(fast) == 9
    assert max(r.at for r in fast) - began < slow_answer
    assert slow_answer <= took < slow_answer + PROMPTLY


def test_a_delivery_reads_the_configuration_and_writes_the_log_in_two_calls(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a configuration, an event, and a recorder of DynamoDB calls
    configure(setup, "/ok")
    publish(setup)
    message = receive(setup, 1)
    calls: list[tuple[str, str | None]] = []
    original = botocore.client.BaseClient._make_api_call

    def counting(self: Any, operation: str, params: dict[str, Any]) -> Any:
        # Only the handler's calls: its own thread and its delivery threads. The suite's local
        # stack may be running beside it, with session hosts scanning the devices table.
        handlers = threading.current_thread().name.startswith((INVOKER, DELIVERY_THREAD_PREFIX))
        if handlers and self.meta.service_model.service_name == "dynamodb":
            calls.append(
                (operation, params.get("TableName") or next(iter(params.get("RequestItems", {})), None))
            )
        return original(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", counting)

    # When it is delivered
    assert invoke(setup, message) == set()

    # Then the function made exactly the calls its IAM policy allows it: one consistent read
    # of the webhooks table and one batch write to the deliveries table
    from gateway.config import get_settings

    settings = get_settings()
    assert calls == [("GetItem", settings.webhooks_table), ("BatchWriteItem", settings.deliveries_table)]


def test_outside_local_mode_a_loopback_receiver_is_refused_and_the_attempt_logged(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a deployment that is not local (plain HTTP allowed, so only the address matters)
    from gateway.config import get_settings

    deployed = get_settings().model_copy(update={"local_mode": False, "allow_http_webhooks": True})
    monkeypatch.setattr(service, "get_settings", lambda: deployed)
    monkeypatch.setattr(batch, "get_settings", lambda: deployed)
    configure(setup, "/in", retry_attempts=0)
    envelope = publish(setup)

    # When the event is delivered to the loopback receiver
    invoke(setup, receive(setup, 1))

    # Then no request reached it, and the refusal is logged
    assert setup.script.received == []
    event_item = log_of(setup.device_id)[f"event#{envelope['id']}"]
    assert event_item.status == "failed"
    assert event_item.error == "refused: the receiver's address 127.0.0.1 is not public"


def test_plain_http_is_refused_where_the_deployment_does_not_allow_it(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gateway.config import get_settings

    deployed = get_settings().model_copy(update={"local_mode": False, "allow_http_webhooks": False})
    monkeypatch.setattr(service, "get_settings", lambda: deployed)
    monkeypatch.setattr(batch, "get_settings", lambda: deployed)  # the batch's view of the configuration
    configure(setup, "/in", retry_attempts=0)
    envelope = publish(setup)
    invoke(setup, receive(setup, 1))
    assert setup.script.received == []
    assert log_of(setup.device_id)[f"event#{envelope['id']}"].error == "refused: plain HTTP is not allowed"
