"""The local stand-in for the delivery functions' Lambda event source mappings: one worker for
the events queue (``WebhookDeliveryFunction``), one for the slow lane's queue
(``SlowWebhookDeliveryFunction``, at most its reserved concurrency at once, as on Lambda).

A poller thread gathers batches from the events queue as the mapping declared in template.yaml
does (up to ``BatchSize`` messages, 10 per receive, for at most
``MaximumBatchingWindowInSeconds`` after the first one) and hands each, as the SQS event Lambda
would build, to the delivery function's real ``handler`` on an invoker thread of its own, with a
context whose remaining time runs down from the function's ``Timeout``. Up to
:data:`INVOCATIONS` run at once: Lambda scales its concurrent invocations with the queue, so a
batch held by a slow receiver never keeps the next batch waiting. After the handler
returns, the records it did not list in ``batchItemFailures`` are deleted; the failed ones stay
and come back when their visibility timeout, set by the handler, runs out. An invocation that
raises deletes nothing. Local delivery therefore follows the same code and the same retry
timing as AWS.

The poller long-polls (one-second polls: moto answers at once when a message is sent). But
moto wakes a long poll only once a second for a message whose visibility timeout ran out,
which would blur the 1 s, 2 s, 3 s retry timing; so for as long as a retry may be due (the
longest retry delay after an invocation reported failures) it short-polls every
``poll_interval`` seconds instead; so does it while it fills a batch. Another difference from
AWS, on purpose: the handler runs without its logger's Lambda-context decorator (see
:func:`_delivery_handler`).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from gateway.bus.queues import sqs_client
from gateway.observability import logger
from gateway.webhooks.delivery.constants import MAX_RETRY_DELAY_SECONDS
from local_stack.principals import running_as
from local_stack.template import SqsEventSource, load_template, reserved_concurrency, sqs_event_source

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]

LONG_POLL_SECONDS = 1  # also how long stop() may wait for the poller
RECEIVE_LIMIT = 10  # messages per ReceiveMessage (SQS's limit)
FUNCTION_NAME = "WebhookDeliveryFunction"
SLOW_FUNCTION_NAME = "SlowWebhookDeliveryFunction"
INVOCATIONS = 64
"""Invocations running at once, at most. A batch with an event for a receiver that hangs lasts
that receiver's ``timeout`` (30 s at most), and one such batch a second (the batching window)
with their retries holds about 40: the rest of the queue is still invoked at once."""


def template_event_source(function: str = FUNCTION_NAME) -> SqsEventSource:
    """The delivery function's event source mapping, as template.yaml declares it."""
    return sqs_event_source(load_template(), function)


def template_timeout(function: str = FUNCTION_NAME) -> float:
    """The delivery function's ``Timeout`` in template.yaml (seconds)."""
    return float(load_template()["Resources"][function]["Properties"]["Timeout"])


def template_invocations(function: str) -> int:
    """Invocations at once: the function's reserved concurrency where the template sets one by
    default, else :data:`INVOCATIONS`."""
    return reserved_concurrency(load_template(), function) or INVOCATIONS


@dataclass
class LambdaContext:
    """The attributes of the Lambda context object that Powertools and the handler read; the
    remaining time runs down from ``timeout`` seconds after it is made, as Lambda's does."""

    function_name: str = FUNCTION_NAME
    memory_limit_in_mb: int = 512
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    invoked_function_arn: str = f"arn:aws:lambda:us-east-1:123456789012:function:{FUNCTION_NAME}"
    timeout: float = 60.0  # the template's Timeout of the delivery function
    started: float = field(default_factory=time.monotonic)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.started + self.timeout - time.monotonic()) * 1000))


def lambda_record(message: dict[str, Any], queue_arn: str, region: str) -> dict[str, Any]:
    """One SQS message in the shape of a record of Lambda's SQS event."""
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": dict(message.get("Attributes", {})),
        "messageAttributes": {
            name: {
                "stringValue": value.get("StringValue"),
                "binaryValue": value.get("BinaryValue"),
                "stringListValues": [],
                "binaryListValues": [],
                "dataType": value["DataType"],
            }
            for name, value in message.get("MessageAttributes", {}).items()
        },
        "md5OfBody": message.get("MD5OfBody", ""),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


def _delivery_handler() -> Handler:
    """The delivery function's handler, less its logger's Lambda-context decorator: those keys
    are global to the process's Powertools logger, which the session host and the API server
    share in the local stack, and would label their lines as the function's."""
    from webhook_delivery.handler import handler  # imported once the environment is set

    return handler.__wrapped__  # type: ignore[union-attr,no-any-return]


class DeliveryWorker:
    """Polls ``queue_url`` and invokes ``handler`` with SQS events, like the event source mapping.

    Its AWS calls are the function's (``as_function``: the deploy rehearsal judges them against
    its role); a worker on a queue of a test's own is not the function and passes False.
    """

    def __init__(
        self,
        queue_url: str,
        handler: Handler | None = None,
        *,
        invokers: int = INVOCATIONS,
        poll_interval: float = 0.05,
        source: SqsEventSource | None = None,
        function: str = FUNCTION_NAME,
        as_function: bool = True,
    ) -> None:
        self._queue_url = queue_url
        self._handler = handler or _delivery_handler()
        self._function = function
        self._principal = function if as_function else None
        self._source = source or template_event_source(function)
        self._timeout = template_timeout(function)
        self._poll_interval = poll_interval
        self._slots = threading.Semaphore(invokers)
        self._invokers = ThreadPoolExecutor(max_workers=invokers, thread_name_prefix="delivery-invoke")
        self._stopped = threading.Event()
        self._short_polls_until = 0.0  # time.monotonic() until which retries may come back
        self._poller = threading.Thread(target=self._poll, name=f"poller-{function}", daemon=True)

    def _as_function(self) -> AbstractContextManager[None]:
        return running_as(self._principal) if self._principal is not None else nullcontext()

    def start(self) -> DeliveryWorker:
        sqs = self._sqs = sqs_client()
        # The mapping polls, deletes and reads the queue with the function's role, as on AWS.
        with self._as_function():
            attributes = sqs.get_queue_attributes(QueueUrl=self._queue_url, AttributeNames=["QueueArn"])
        self._queue_arn = attributes["Attributes"]["QueueArn"]
        self._region = self._queue_arn.split(":")[3]
        self._poller.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop polling and let the invocations under way finish (their records are settled)."""
        self._stopped.set()
        self._poller.join(timeout=timeout)
        self._invokers.shutdown(wait=True)

    def _poll(self) -> None:
        with self._as_function():
            self._poll_until_stopped()

    def _poll_until_stopped(self) -> None:
        while not self._stopped.is_set():
            if not self._slots.acquire(timeout=self._poll_interval):
                continue  # every invoker busy: leave the messages to the queue for now
            messages = self._gather()
            if messages:
                self._invokers.submit(self._invoke, messages)
            else:
                self._slots.release()

    def _gather(self) -> list[dict[str, Any]]:
        """One batch: up to ``BatchSize`` messages, gathered for at most the batching window
        after the first one arrived. Empty after a poll that found nothing."""
        batch: list[dict[str, Any]] = []
        window_ends = 0.0
        while len(batch) < self._source.batch_size and not self._stopped.is_set():
            if batch and time.monotonic() >= window_ends:
                break
            retries_due = time.monotonic() < self._short_polls_until
            received = self._receive(
                min(RECEIVE_LIMIT, self._source.batch_size - len(batch)),
                wait=0 if batch or retries_due else LONG_POLL_SECONDS,
            )
            if received is None:  # a failed poll: pause, and hand on what was gathered
                self._stopped.wait(self._poll_interval)
                return batch
            if not received and not batch:
                if retries_due:  # a short poll found nothing: pause
                    self._stopped.wait(self._poll_interval)
                return []
            if not batch:
                window_ends = time.monotonic() + self._source.batching_window_seconds
            batch += received
            if not received:  # the queue is drained for now: wait for more, within the window
                self._stopped.wait(min(self._poll_interval, max(0.0, window_ends - time.monotonic())))
        return batch

    def _receive(self, count: int, wait: int) -> list[dict[str, Any]] | None:
        """Up to ``count`` messages; ``None`` when the receive failed."""
        try:
            messages: list[dict[str, Any]] = self._sqs.receive_message(
                QueueUrl=self._queue_url,
                MaxNumberOfMessages=count,
                WaitTimeSeconds=wait,
                MessageSystemAttributeNames=["All"],
                MessageAttributeNames=["All"],
            ).get("Messages", [])
        except Exception:  # moto going away at shutdown, or a transient error
            logger.exception("polling the events queue failed")
            return None
        return messages

    def _invoke(self, messages: list[dict[str, Any]]) -> None:
        with self._as_function():
            self._invoke_as_function(messages)

    def _invoke_as_function(self, messages: list[dict[str, Any]]) -> None:
        try:
            event = {"Records": [lambda_record(m, self._queue_arn, self._region) for m in messages]}
            context = LambdaContext(
                function_name=self._function,
                invoked_function_arn=f"arn:aws:lambda:us-east-1:123456789012:function:{self._function}",
                timeout=self._timeout,
            )
            response = self._handler(event, context)
            failed = {failure["itemIdentifier"] for failure in response.get("batchItemFailures", [])}
            if failed:  # they come back within the longest retry delay
                self._short_polls_until = time.monotonic() + MAX_RETRY_DELAY_SECONDS + 1
            done = [m for m in messages if m["MessageId"] not in failed]
            for start in range(0, len(done), RECEIVE_LIMIT):  # DeleteMessageBatch takes 10 too
                self._sqs.delete_message_batch(
                    QueueUrl=self._queue_url,
                    Entries=[
                        {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                        for i, m in enumerate(done[start : start + RECEIVE_LIMIT])
                    ],
                )
        except Exception:  # as in Lambda: a failed invocation leaves its whole batch on the queue
            logger.exception("a delivery invocation failed; its records stay on the queue")
        finally:
            self._slots.release()
