"""Lambda entry point of webhook delivery: SQS batches of event envelopes, partial failures.

Powertools' batch processor delivers the records of a batch at the same time, their attempts on
the invocation's thread pool, their log written in group commits; the records to keep (retries
scheduled, or not delivered for a reason that is not the receiver's) are reported in
``batchItemFailures`` and SQS keeps them. The logic is in
``gateway.webhooks.delivery.invocation``; see docs/delivery.md.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse

from gateway.observability import logger, tracer
from gateway.webhooks.delivery.constants import DELIVERY_THREAD_PREFIX, DELIVERY_THREADS
from gateway.webhooks.delivery.invocation import deliver_batch

_pools = threading.local()


def _pool() -> ThreadPoolExecutor:
    """The invoking thread's pool: Lambda runs one invocation at a time per sandbox, the local
    worker several at once on threads of its own, and each must have a whole batch's threads."""
    pool: ThreadPoolExecutor | None = getattr(_pools, "pool", None)
    if pool is None:
        pool = _pools.pool = ThreadPoolExecutor(DELIVERY_THREADS, thread_name_prefix=DELIVERY_THREAD_PREFIX)
    return pool


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return deliver_batch(event, context, _pool())
