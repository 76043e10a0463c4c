"""Lambda entry point of webhook delivery: SQS batches of event envelopes, partial failures.

Powertools' batch processor delivers the records of a batch at the same time: their receiver
calls on the transport's event loop, each under its own deadline; their configuration reads and
log writes (blocking DynamoDB calls) on the invocation's thread pool; their log written in group
commits. The records to keep (retries scheduled, events not attempted in the invocation's
time, or not delivered for a reason that is not the receiver's) are reported in
``batchItemFailures`` and SQS keeps them. The logic is in
``gateway.webhooks.delivery.invocation``; see docs/delivery.md.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse

from gateway.observability import logger, tracer
from gateway.webhooks.delivery.constants import DELIVERY_THREAD_PREFIX, DELIVERY_THREADS
from gateway.webhooks.delivery.invocation import deliver_batch


@logger.inject_lambda_context(clear_state=True)
# Powertools annotates the handler this returns as Callable[..., Any].
@tracer.capture_lambda_handler(capture_response=False)  # type: ignore[untyped-decorator]
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    # A pool of the invocation's own (its threads start as its records need them): on Lambda
    # one invocation runs at a time anyway, and the local stack runs many in one process, where
    # a shared pool made one invocation's blocking calls wait behind another's. It is not
    # waited for: a call still blocked when the invocation must return finishes on its own.
    pool = ThreadPoolExecutor(DELIVERY_THREADS, thread_name_prefix=DELIVERY_THREAD_PREFIX)
    try:
        return deliver_batch(event, context, pool)
    finally:
        pool.shutdown(wait=False)
