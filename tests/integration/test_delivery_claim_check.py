"""Envelopes too large for a queue message, against the local stack's SQS and S3 (moto): the
session host's publisher stores them and queues a claim check, the delivery function delivers
them whole and logs the claim check, redelivery finds out when one is gone; a claim check that
names anything else is not an event."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple

import pytest
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from loopback_receiver import Script, loopback_receiver

from gateway.bus.queues import sqs_client
from gateway.config import get_settings
from gateway.media.store import s3_client
from gateway.models.webhooks import DeliveryModel, WebhookModel
from gateway.webhooks import events_queue
from gateway.webhooks.events_queue import EventEnvelope, MalformedEvent, parse_record
from local_stack.delivery_worker import LambdaContext, lambda_record
from local_stack.stack import LocalStack
from session_host.aws_calls import AwsCalls
from session_host.publisher import EventPublisher
from webhook_delivery.handler import handler

EMOJI = "\U0001f600"


class Queue(NamedTuple):
    url: str
    arn: str


@dataclass
class Setup:
    """A tenant's device, a queue limited like the events queue, and a receiver (``script``)."""

    tenant_id: str
    device_id: str
    queue: Queue
    receiver_url: str
    script: Script


@pytest.fixture
def setup(stack: LocalStack) -> Iterator[Setup]:
    """A queue of the test's own, limited like the events queue, and a receiver."""
    sqs = sqs_client()
    queue_url = sqs.create_queue(
        QueueName=f"claim-it-{uuid.uuid4().hex[:12]}",
        Attributes={"MaximumMessageSize": str(events_queue.MAX_MESSAGE_BYTES)},
    )["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    with loopback_receiver() as (port, script):
        url = f"http://127.0.0.1:{port}/in"
        yield Setup(str(uuid.uuid4()), f"d-{uuid.uuid4().hex[:8]}", Queue(queue_url, arn), url, script)
    sqs.delete_queue(QueueUrl=queue_url)


def envelope_of(setup: Setup, text: str) -> dict[str, Any]:
    return {
        "id": uuid.uuid4().hex,
        "event": "message.received",
        "timestamp": 1767225600,
        "device_id": setup.device_id,
        "data": {"content": text},
    }


def publish_through_host(setup: Setup, envelopes: list[dict[str, Any]]) -> None:
    """The session host's publisher, as the host runs it, sends ``envelopes`` to the queue."""

    async def main() -> None:
        aws = AwsCalls(4, "claim-it")
        publisher = EventPublisher(sqs_client(), setup.queue.url, aws, linger=0.01, buffer_size=10, senders=1)
        publisher.start()
        try:
            for envelope in envelopes:
                await publisher.publish(EventEnvelope.model_validate(envelope), setup.tenant_id)
            await publisher.stop(timeout=10)
        finally:
            aws.shutdown()

    asyncio.run(main())


def receive_all(setup: Setup, count: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for _ in range(20):
        messages += (
            sqs_client()
            .receive_message(
                QueueUrl=setup.queue.url,
                MaxNumberOfMessages=10,
                MessageSystemAttributeNames=["All"],
                MessageAttributeNames=["All"],
            )
            .get("Messages", [])
        )
        if len(messages) >= count:
            return messages
    raise AssertionError(f"{len(messages)} of {count} messages on the queue")


def record_of(setup: Setup, message: dict[str, Any]) -> SQSRecord:
    return SQSRecord(lambda_record(message, setup.queue.arn, setup.queue.arn.split(":")[3]))


def configure(setup: Setup) -> None:
    WebhookModel(
        setup.tenant_id,
        setup.device_id,
        webhook_id=str(uuid.uuid4()),
        webhook_url=setup.receiver_url,
        enabled_events={"message"},
        enabled=True,
        retry_attempts=0,
        timeout=5,
        headers={},
        created_at="2026-01-01T00:00:00.000Z",
        updated_at="2026-01-01T00:00:00.000Z",
    ).save()


def test_a_large_envelope_is_queued_as_a_claim_check_delivered_whole_and_logged_small(setup: Setup) -> None:
    # Given a host that publishes a small envelope and one of 30,000 emoji (360 KB as queued JSON)
    configure(setup)
    small, large = envelope_of(setup, "hi"), envelope_of(setup, EMOJI * 30_000)
    publish_through_host(setup, [small, large])

    # When the delivery function handles what the queue holds
    messages = receive_all(setup, 2)
    region = setup.queue.arn.split(":")[3]
    event = {"Records": [lambda_record(m, setup.queue.arn, region) for m in messages]}
    with ThreadPoolExecutor(1, thread_name_prefix="claim-invoker") as invoker:
        answer = invoker.submit(handler, event, LambdaContext()).result()

    # Then the queue held a claim check for the large one, with the event's routing attributes
    (claimed,) = [m for m in messages if events_queue.is_claim_check(m["Body"])]
    assert len(claimed["Body"]) < 200
    assert claimed["MessageAttributes"]["tenant_id"]["StringValue"] == setup.tenant_id
    # And the receiver got both envelopes whole, nothing failed
    assert answer == {"batchItemFailures": []}
    got = {json.loads(r.body)["id"]: json.loads(r.body) for r in setup.script.of("/in")}
    assert got == {small["id"]: small, large["id"]: large}
    # And the log keeps the claim check (DynamoDB items stop at 400 KB), which redelivery can
    # use while the object is kept, and not once it is gone
    logged = DeliveryModel.get(setup.device_id, f"event#{large['id']}", consistent_read=True).envelope
    assert logged == claimed["Body"]
    assert events_queue.still_kept(logged, setup.tenant_id)
    key = f"events/{setup.tenant_id}/{setup.device_id}/{large['id']}"
    s3_client().delete_object(Bucket=get_settings().media_bucket, Key=key)
    assert not events_queue.still_kept(logged, setup.tenant_id)


def claim_record(setup: Setup, pointer: Any, tenant_id: str | None = None) -> SQSRecord:
    message = {
        "MessageId": str(uuid.uuid4()),
        "ReceiptHandle": "receipt",
        "Body": json.dumps(pointer),
        "Attributes": {"ApproximateReceiveCount": "1"},
        "MessageAttributes": {
            "tenant_id": {"DataType": "String", "StringValue": tenant_id or setup.tenant_id},
            "event": {"DataType": "String", "StringValue": "message.received"},
        },
    }
    return record_of(setup, message)


def is_event(record: SQSRecord) -> bool:
    try:
        parse_record(record)
    except MalformedEvent:
        return False
    return True


def pointer(bucket: str, key: str) -> list[Any]:
    return [events_queue.POINTER_CLASS, {"s3BucketName": bucket, "s3Key": key}]


def test_a_claim_check_naming_anything_but_its_own_event_is_not_an_event(setup: Setup) -> None:
    # Given an envelope of another tenant stored as a claim check, and one of this tenant
    bucket = get_settings().media_bucket
    other_tenant = str(uuid.uuid4())
    theirs = envelope_of(setup, "theirs")
    ours = envelope_of(setup, "ours")
    for tenant, envelope in ((other_tenant, theirs), (setup.tenant_id, ours)):
        key = events_queue.object_key(tenant, setup.device_id, envelope["id"])
        s3_client().put_object(Bucket=bucket, Key=key, Body=json.dumps(envelope).encode())
    ours_key = events_queue.object_key(setup.tenant_id, setup.device_id, ours["id"])
    moved = events_queue.object_key(setup.tenant_id, setup.device_id, uuid.uuid4().hex)
    s3_client().copy_object(Bucket=bucket, Key=moved, CopySource={"Bucket": bucket, "Key": ours_key})

    refused = {
        "another tenant's key": pointer(
            bucket, events_queue.object_key(other_tenant, setup.device_id, theirs["id"])
        ),
        "a key outside the events": pointer(bucket, f"{setup.tenant_id}/{setup.device_id}/x"),
        "another bucket": pointer("someone-elses-bucket", ours_key),
        "an envelope under another event's key": pointer(bucket, moved),
        "an object that is gone": pointer(
            bucket, events_queue.object_key(setup.tenant_id, setup.device_id, "0" * 32)
        ),
        "a list that is no claim check": ["something", {"s3Key": ours_key}],
    }

    # When the delivery function reads each / Then none is an event
    assert [why for why, body in refused.items() if is_event(claim_record(setup, body))] == []

    # And the tenant's own claim check is its envelope
    assert parse_record(claim_record(setup, pointer(bucket, ours_key))).envelope.fields() == ours


def test_the_local_stack_limits_its_events_queue_and_expires_claim_checks_as_the_template_says(
    stack: LocalStack,
) -> None:
    # Given the local stack's events queue and media bucket, made from template.yaml
    # When their size limit and lifecycle rules are read
    attributes = sqs_client().get_queue_attributes(
        QueueUrl=get_settings().events_queue_url, AttributeNames=["MaximumMessageSize"]
    )["Attributes"]
    rules = s3_client().get_bucket_lifecycle_configuration(Bucket=get_settings().media_bucket)["Rules"]

    # Then moto refuses what SQS would, and keeps the claim checks' own expiry
    assert attributes["MaximumMessageSize"] == str(events_queue.MAX_MESSAGE_BYTES)
    (events,) = [rule for rule in rules if rule["Filter"].get("Prefix") == events_queue.KEY_PREFIX]
    assert events["Expiration"]["Days"] == 30
