"""The local delivery worker against a queue of its own (moto): it feeds a handler SQS events and
settles the records as Lambda's event source mapping does."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from aws_lambda_powertools.utilities.data_classes import SQSEvent
from waiting import wait_until

from gateway.bus.queues import sqs_client
from local_stack.delivery_worker import DeliveryWorker, template_event_source
from local_stack.stack import LocalStack
from local_stack.template import SqsEventSource

# The test queues hide a received message for 1 s only, so a failed record comes back quickly;
# a worker gathering a batch for the template's 1 s window would see it again in the same batch.
NO_WINDOW = SqsEventSource(batch_size=10, batching_window_seconds=0, report_batch_item_failures=True)


class RecordingHandler:
    """Answers like the delivery function: bodies starting with ``fail`` are reported as failed,
    ``boom`` makes the whole invocation raise."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.batch_sizes: list[int] = []
        self.lock = threading.Lock()

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        records = list(SQSEvent(event).records)
        with self.lock:
            self.batch_sizes.append(len(records))
            self.seen.update(record.body for record in records)
        assert context.function_name == "WebhookDeliveryFunction"
        if any(record.body == "boom" for record in records):
            raise RuntimeError("the invocation failed")
        return {
            "batchItemFailures": [
                {"itemIdentifier": record.message_id} for record in records if record.body.startswith("fail")
            ]
        }


@pytest.fixture
def queue_url(stack: LocalStack) -> Iterator[str]:
    # Failed records come back after 1 s, so a test sees them again quickly.
    url = sqs_client().create_queue(
        QueueName=f"worker-it-{uuid.uuid4().hex[:12]}", Attributes={"VisibilityTimeout": "1"}
    )["QueueUrl"]
    yield url
    sqs_client().delete_queue(QueueUrl=url)


def send(queue_url: str, *bodies: str) -> None:
    for body in bodies:
        sqs_client().send_message(
            QueueUrl=queue_url,
            MessageBody=body,
            MessageAttributes={"tenant_id": {"DataType": "String", "StringValue": "t-1"}},
        )


def test_processed_records_are_deleted_and_failed_ones_come_back(queue_url: str) -> None:
    # Given a worker on a queue holding two good events and one the handler fails
    handler = RecordingHandler()
    worker = DeliveryWorker(queue_url, handler, source=NO_WINDOW, as_function=False).start()
    try:
        send(queue_url, "ok-1", "ok-2", "fail-1")

        # When it runs until the failed one was handled a third time, two visibility timeouts
        # after its first (the good ones, sent first, were received no later than it)
        wait_until(lambda: handler.seen["fail-1"] >= 3, what="the failed record handled three times")
    finally:
        worker.stop()

    # Then the good events were handled once (deleted: never back), the failed one again and again
    assert handler.seen["ok-1"] == 1
    assert handler.seen["ok-2"] == 1
    assert max(handler.batch_sizes) <= 10


def test_a_failed_invocation_leaves_its_whole_batch_on_the_queue(queue_url: str) -> None:
    handler = RecordingHandler()
    worker = DeliveryWorker(queue_url, handler, source=NO_WINDOW, as_function=False).start()
    try:
        send(queue_url, "boom")
        # Then the record comes back after its visibility timeout and is handled again
        wait_until(lambda: handler.seen["boom"] >= 2, what="the record of a failed invocation back")
    finally:
        worker.stop()


def test_the_handler_gets_lambdas_sqs_event(queue_url: str) -> None:
    # Given a handler that keeps the event it is given
    events: list[dict[str, Any]] = []

    def keep(event: dict[str, Any], context: Any) -> dict[str, Any]:
        events.append(event)
        return {"batchItemFailures": []}

    worker = DeliveryWorker(queue_url, keep, source=NO_WINDOW, as_function=False).start()
    try:
        send(queue_url, "hello")
        wait_until(lambda: events, what="the handler invoked")
    finally:
        worker.stop()

    # Then it is an SQS event of that queue, with the receive count and the message attributes
    (record,) = SQSEvent(events[0]).records
    assert record.body == "hello"
    assert record.event_source == "aws:sqs"
    assert record.event_source_arn.endswith(":" + queue_url.rsplit("/", 1)[1])
    assert record.attributes.approximate_receive_count == "1"
    assert record.message_attributes["tenant_id"].string_value == "t-1"


def test_batches_are_gathered_as_the_templates_event_source_mapping_gathers_them(stack: LocalStack) -> None:
    # Given the template's mapping (batches larger than one receive, a batching window) and a
    # queue that keeps received messages hidden for longer than the window
    source = template_event_source()
    assert source.batch_size > 10
    assert source.batching_window_seconds >= 1
    assert source.report_batch_item_failures
    url = sqs_client().create_queue(QueueName=f"worker-it-{uuid.uuid4().hex[:12]}")["QueueUrl"]
    handler = RecordingHandler()
    worker = DeliveryWorker(url, handler, invokers=1, as_function=False).start()
    try:
        # When more than a batch is queued at once
        bodies = [f"ok-{n}" for n in range(source.batch_size + 5)]
        send(url, *bodies)
        wait_until(lambda: sum(handler.seen.values()) >= len(bodies), what="every record handled")

        # And then one more, after the queue was drained
        send(url, "late")
        wait_until(lambda: handler.seen["late"] == 1, what="the late record handled")
    finally:
        worker.stop()
        sqs_client().delete_queue(QueueUrl=url)

    # Then the first batch was gathered over several receives (within the window), none was
    # larger than the mapping allows, each record came once, and the late one was handed on
    # alone once its window ran out
    assert handler.batch_sizes[0] > 10
    assert max(handler.batch_sizes) <= source.batch_size
    assert handler.batch_sizes[-1] == 1
    assert set(handler.seen) == {*bodies, "late"}
    assert set(handler.seen.values()) == {1}
