"""The numbers of delivery agree with each other: the webhook limits, the code's constants and
the template's queue and function settings."""

from __future__ import annotations

from typing import Any

import pytest
from annotated_types import Le

from gateway.webhooks.delivery import constants, service
from gateway.webhooks.schemas import WebhookRequest
from local_stack.template import load_template


def upper_bound(field: str) -> int:
    (bound,) = [item.le for item in WebhookRequest.model_fields[field].metadata if isinstance(item, Le)]
    return int(bound)


@pytest.fixture(scope="module")
def resources() -> dict[str, Any]:
    return load_template()["Resources"]


def test_every_attempt_a_webhook_may_make_fits_before_the_dead_letter_queue(
    resources: dict[str, Any],
) -> None:
    # Given the most attempts a configuration allows (the first one and its retries)
    attempts = 1 + upper_bound("retry_attempts")

    # Then SQS redrives an event to the DLQ only after more receives than that
    max_receive_count = resources["EventsQueue"]["Properties"]["RedrivePolicy"]["maxReceiveCount"]
    assert max_receive_count > attempts


def test_the_longest_retry_delay_is_the_one_the_worker_waits_for() -> None:
    longest = service.retry_delay(upper_bound("retry_attempts"))
    assert longest == constants.MAX_RETRY_DELAY_SECONDS


def test_the_function_outlives_the_slowest_receiver_and_the_queue_outlives_the_function(
    resources: dict[str, Any],
) -> None:
    # Given the function's timeout and the queue's visibility timeout
    function_timeout = resources["WebhookDeliveryFunction"]["Properties"]["Timeout"]
    visibility_timeout = resources["EventsQueue"]["Properties"]["VisibilityTimeout"]

    # Then an attempt at the longest timeout, started when the batch starts (its records run at
    # the same time), and its log end before the invocation must return, with time to spare
    # for reading the configuration; and a record is not handed out again while its batch may
    # still be running
    returns_after = function_timeout - constants.RETURN_MARGIN_SECONDS
    assert returns_after - constants.SETTLE_RESERVE_SECONDS - upper_bound("timeout") >= 10
    assert visibility_timeout >= 6 * function_timeout
    assert visibility_timeout > constants.MAX_RETRY_DELAY_SECONDS


def test_a_whole_batch_is_delivered_at_once(resources: dict[str, Any]) -> None:
    batch_size = resources["WebhookDeliveryFunction"]["Properties"]["Events"]["Events"]["Properties"][
        "BatchSize"
    ]
    assert batch_size == constants.MAX_BATCH_SIZE  # the local worker's batches too
    assert batch_size <= constants.DELIVERY_THREADS
