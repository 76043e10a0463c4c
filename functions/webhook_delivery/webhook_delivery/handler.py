"""Lambda entry point of webhook delivery: SQS batches of event envelopes, partial failures.

Every record of a batch is delivered at the same time, each on its own thread (the receiver
call blocks), so one slow receiver holds up only its own events. A record that raises is
reported in ``batchItemFailures`` and SQS keeps it: the delivery service has then set its
visibility timeout to the retry delay. See docs/delivery.md.
"""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aws_lambda_powertools.utilities.batch import (
    AsyncBatchProcessor,
    EventType,
    async_process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from gateway.observability import logger, tracer
from gateway.webhooks.delivery.batch import Batch
from gateway.webhooks.delivery.constants import DELIVERY_THREAD_PREFIX, DELIVERY_THREADS
from gateway.webhooks.delivery.service import deliver_record

executor = ThreadPoolExecutor(max_workers=DELIVERY_THREADS, thread_name_prefix=DELIVERY_THREAD_PREFIX)


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    # A processor per invocation (it holds the batch's results), and a receiver that is down
    # failing every record is a normal outcome, not an error of the function.
    processor = AsyncBatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    batch = Batch()  # configurations read once per device, outcomes counted for the metrics

    async def deliver_in_thread(record: SQSRecord) -> None:
        run = contextvars.copy_context().run  # the invocation's logging keys follow the record
        await asyncio.get_running_loop().run_in_executor(executor, run, deliver_record, record, batch)

    try:
        return async_process_partial_response(
            event=event, record_handler=deliver_in_thread, processor=processor, context=context
        )
    finally:
        batch.outcomes.publish()
