"""Lambda entry point of webhook delivery: SQS batches of event envelopes, partial failures.

Delivery itself (signing, the receiver call, the delivery log) arrives with the webhooks
capability. Until then every record is reported as failed, so SQS keeps it and, after the
redrive count, moves it to the dead-letter queue: no event is acknowledged undelivered.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from gateway.observability import logger, metrics, tracer

processor = BatchProcessor(event_type=EventType.SQS)


class DeliveryNotAvailable(Exception):
    """Webhook delivery is not built yet; the event stays on the queue."""


def deliver_record(record: SQSRecord) -> None:
    raise DeliveryNotAvailable(f"event {record.message_id} kept on the queue: delivery is not built yet")


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return process_partial_response(
        event=event, record_handler=deliver_record, processor=processor, context=context
    )
