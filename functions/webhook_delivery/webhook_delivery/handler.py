"""Lambda entry point of webhook delivery: SQS batches of event envelopes, partial failures.

The records of a batch are delivered at the same time on the invocation's thread pool, their
log written in batches; the records to keep (retries scheduled, or not delivered for a reason
that is not the receiver's) are reported in ``batchItemFailures`` and SQS keeps them. The
logic is in ``gateway.webhooks.delivery.invocation``; see docs/delivery.md.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

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
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:  # noqa: ARG001 - Lambda's signature
    keep = deliver_batch(event["Records"], _pool())
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in keep]}
