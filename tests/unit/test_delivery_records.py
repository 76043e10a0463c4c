"""What the delivery function reads from an SQS record, and the record the local worker builds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from gateway.webhooks.events_queue import MalformedEvent, parse_record
from local_stack.delivery_worker import lambda_record

QUEUE_ARN = "arn:aws:sqs:eu-west-1:123456789012:gateway-EventsQueue-abc"
ENVELOPE = {
    "id": "5f0c9a0e3b2d4c8fa1e2d3c4b5a69788",
    "event": "message.received",
    "timestamp": 1767225600,
    "device_id": "dev-1",
    "data": {"message_id": "ABC", "content": "grüße"},
}


def sqs_message(body: str, receive_count: int = 1, **attributes: str) -> dict[str, Any]:
    """A message as ReceiveMessage returns it (with all attributes asked for)."""
    return {
        "MessageId": "0b6c7a76-8d1e-4a3a-9c1b-6f2e2f8a9d10",
        "ReceiptHandle": "receipt-handle-1",
        "MD5OfBody": "ignored",
        "Body": body,
        "Attributes": {
            "ApproximateReceiveCount": str(receive_count),
            "SentTimestamp": "1767225600000",
            "SenderId": "AIDAEXAMPLE",
            "ApproximateFirstReceiveTimestamp": "1767225600100",
        },
        "MessageAttributes": {
            name: {"StringValue": value, "DataType": "String"} for name, value in attributes.items()
        },
    }


def record(body: str, receive_count: int = 1, **attributes: str) -> SQSRecord:
    return SQSRecord(lambda_record(sqs_message(body, receive_count, **attributes), QUEUE_ARN, "eu-west-1"))


def test_the_worker_builds_records_in_the_shape_of_lambdas_sqs_event() -> None:
    # Given a received message with two message attributes
    message = sqs_message(json.dumps(ENVELOPE), 3, tenant_id="t-1", event="message.received")

    # When the worker turns it into a record of an SQS event
    built = lambda_record(message, QUEUE_ARN, "eu-west-1")

    # Then it has the fields and casing Lambda uses
    assert set(built) == {
        "messageId",
        "receiptHandle",
        "body",
        "attributes",
        "messageAttributes",
        "md5OfBody",
        "eventSource",
        "eventSourceARN",
        "awsRegion",
    }
    assert (built["eventSource"], built["eventSourceARN"], built["awsRegion"]) == (
        "aws:sqs",
        QUEUE_ARN,
        "eu-west-1",
    )
    assert built["attributes"]["ApproximateReceiveCount"] == "3"
    assert built["messageAttributes"]["tenant_id"] == {
        "stringValue": "t-1",
        "binaryValue": None,
        "stringListValues": [],
        "binaryListValues": [],
        "dataType": "String",
    }


def test_an_envelope_record_gives_the_event_its_tenant_and_attempt_number() -> None:
    # Given the third receive of an envelope the session host published
    incoming = parse_record(record(json.dumps(ENVELOPE), 3, tenant_id="t-1", event="message.received"))

    # Then the event is read with its tenant, its attempt number and where to change visibility
    assert incoming.envelope.fields() == ENVELOPE
    assert (incoming.event_id, incoming.event, incoming.device_id) == (
        ENVELOPE["id"],
        "message.received",
        "dev-1",
    )
    assert incoming.tenant_id == "t-1"
    assert incoming.attempt == 3
    assert incoming.redelivery is False
    assert incoming.receipt_handle == "receipt-handle-1"
    assert incoming.queue_url == "https://sqs.eu-west-1.amazonaws.com/123456789012/gateway-EventsQueue-abc"


def test_a_redelivery_is_marked_and_starts_at_attempt_one() -> None:
    incoming = parse_record(record(json.dumps(ENVELOPE), 1, tenant_id="t-1", redelivery="true"))
    assert incoming.redelivery is True
    assert incoming.attempt == 1


@pytest.mark.parametrize(
    ("body", "attributes"),
    [
        ("not json", {"tenant_id": "t-1"}),
        (json.dumps([ENVELOPE]), {"tenant_id": "t-1"}),
        (json.dumps({key: value for key, value in ENVELOPE.items() if key != "data"}), {"tenant_id": "t-1"}),
        (json.dumps({**ENVELOPE, "id": ""}), {"tenant_id": "t-1"}),
        (json.dumps({**ENVELOPE, "event": 7}), {"tenant_id": "t-1"}),
        (json.dumps(ENVELOPE), {}),
    ],
    ids=["not-json", "not-an-object", "no-data", "empty-id", "event-not-a-string", "no-tenant"],
)
def test_a_record_that_is_not_an_envelope_is_malformed(body: str, attributes: dict[str, str]) -> None:
    with pytest.raises(MalformedEvent):
        parse_record(record(body, **attributes))
