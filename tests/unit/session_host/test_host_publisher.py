"""Publishing event envelopes: batches, retries, partial failures, back-pressure, flush; sizes
as SQS counts them, envelopes too large for a message through the bucket, and refusals that
drop one event without stopping the others."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tenacity import wait_fixed

from gateway.config import get_settings
from gateway.retries import EVENT_PUBLISH, RetryPolicy
from gateway.webhooks.catalog import EventName
from gateway.webhooks.events_queue import EventEnvelope, QueueMessage
from session_host.aws_calls import AwsCalls
from session_host.network.port import NetworkEvent
from session_host.publisher import EventPublisher, envelope

QUEUE = "https://sqs.example/123/events"
SQS_LIMIT = 262_144  # bytes, for one message and for a whole SendMessageBatch request
EMOJI = "\U0001f600"  # 4 bytes in UTF-8, 12 as the JSON escape \ud83d\ude00
REDELIVERY_FLAG = len("redelivery") + len("String") + len("true")  # what a redelivery adds


def sqs_size(entry: dict[str, Any]) -> int:
    """A message's size as SQS documents it: the body's UTF-8 bytes, and each attribute's
    name, data type and value."""
    size = len(entry["MessageBody"].encode("utf-8"))
    for name, attribute in entry.get("MessageAttributes", {}).items():
        size += len(name.encode()) + len(attribute["DataType"].encode())
        size += len(attribute.get("StringValue", "").encode())
    return size


def refusal(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "refused"}}, "SendMessageBatch")


class FakeSqs:
    """Records SendMessageBatch calls; ``script`` decides each call's outcome in turn. Like
    SQS, it refuses a request whose messages add up to more than 256 KiB."""

    def __init__(self) -> None:
        self.calls: list[list[dict[str, Any]]] = []
        self.accepted: list[dict[str, Any]] = []
        self.script: list[Callable[[list[dict[str, Any]]], dict[str, Any]]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.called = threading.Event()  # set when a call arrives, before it waits on the gate

    def send_message_batch(self, QueueUrl: str, Entries: list[dict[str, Any]]) -> dict[str, Any]:  # noqa: N803
        assert QueueUrl == QUEUE
        self.called.set()
        self.gate.wait(5)
        self.calls.append(Entries)
        if sum(sqs_size(entry) for entry in Entries) > SQS_LIMIT:
            raise refusal("AWS.SimpleQueueService.BatchRequestTooLong")
        answer = self.script.pop(0)(Entries) if self.script else {}
        failed = {failure["Id"] for failure in answer.get("Failed", [])}
        self.accepted += [entry for entry in Entries if entry["Id"] not in failed]
        return answer or {"Successful": [{"Id": entry["Id"]} for entry in Entries]}

    def sent(self) -> list[dict[str, Any]]:
        """The entries SQS took, in order."""
        return self.accepted


class FakeBucket:
    """Takes claimed envelopes; ``failures`` makes the next puts fail with that error."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.failures: list[ClientError] = []

    def store(self, message: QueueMessage) -> None:
        if self.failures:
            raise self.failures.pop(0)
        assert message.key is not None
        assert message.claimed is not None
        self.objects[message.key] = message.claimed


def item(number: int, **data: Any) -> EventEnvelope:
    return EventEnvelope.model_validate(
        {
            "id": f"e{number}",
            "event": "message.received",
            "timestamp": 1,
            "device_id": "d1",
            "data": {"n": number, **data},
        }
    )


async def publish_all(publisher: EventPublisher, count: int, tenant: str = "t1") -> None:
    for number in range(count):
        await publisher.publish(item(number), tenant)


def run(
    scenario: Callable[[FakeSqs, EventPublisher], Any],
    *,
    buffer_size: int = 100,
    linger: float = 0.01,
    bucket: FakeBucket | None = None,
    retry: RetryPolicy = EVENT_PUBLISH,
    stop_timeout: float = 5,
) -> FakeSqs:
    sqs = FakeSqs()
    store = (bucket or FakeBucket()).store

    async def main() -> None:
        aws = AwsCalls(4, "test-aws")
        publisher = EventPublisher(
            sqs, QUEUE, aws, linger=linger, buffer_size=buffer_size, senders=1, store=store, retry=retry
        )
        publisher.start()
        try:
            await scenario(sqs, publisher)
            await publisher.stop(timeout=stop_timeout)
        finally:
            aws.shutdown()

    asyncio.run(main())
    return sqs


def bodies(entries: list[dict[str, Any]]) -> list[int]:
    return [json.loads(entry["MessageBody"])["data"]["n"] for entry in entries]


def logged(caplog: pytest.LogCaptureFixture, message: str) -> list[dict[str, Any]]:
    """The host's log records with this message: their fields, as the JSON log line has them."""
    return [vars(record) for record in caplog.records if record.getMessage() == message]


def test_envelopes_go_out_in_batches_of_at_most_ten_with_routing_attributes() -> None:
    # Given 25 envelopes published at once
    async def scenario(_sqs: FakeSqs, publisher: EventPublisher) -> None:
        await publish_all(publisher, 25, tenant="tenant-1")

    # When the publisher sends them
    sqs = run(scenario)

    # Then they leave in order, in batches of 10, 10 and 5, with tenant and event attributes
    assert [len(call) for call in sqs.calls] == [10, 10, 5]
    assert [n for call in sqs.calls for n in bodies(call)] == list(range(25))
    assert sqs.calls[0][0]["MessageAttributes"] == {
        "tenant_id": {"DataType": "String", "StringValue": "tenant-1"},
        "event": {"DataType": "String", "StringValue": "message.received"},
    }


def test_a_failed_call_is_retried_until_it_succeeds() -> None:
    # Given SQS fails the first call
    def throttled(_entries: list[dict[str, Any]]) -> dict[str, Any]:
        raise ClientError(
            {"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "SendMessageBatch"
        )

    async def scenario(sqs: FakeSqs, publisher: EventPublisher) -> None:
        sqs.script.append(throttled)
        await publish_all(publisher, 3)

    # When the envelopes are published
    sqs = run(scenario)

    # Then the same batch is sent again and nothing is lost
    assert [bodies(call) for call in sqs.calls] == [[0, 1, 2], [0, 1, 2]]


def test_a_batch_the_queue_does_not_take_is_tried_until_the_stop_and_then_logged_as_lost(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Given SQS throttling every call, for longer than the publisher waits
    def throttled(_entries: list[dict[str, Any]]) -> dict[str, Any]:
        raise ClientError(
            {"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "SendMessageBatch"
        )

    async def scenario(sqs: FakeSqs, publisher: EventPublisher) -> None:
        sqs.script.extend([throttled] * 1000)
        await publish_all(publisher, 2)
        deadline = asyncio.get_running_loop().time() + 5
        while len(sqs.calls) < 5 and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)

    # When events are published and the publisher stops while SQS still refuses them
    sqs = run(scenario, retry=replace(EVENT_PUBLISH, wait=wait_fixed(0.02)), stop_timeout=0.2)

    # Then the batch was tried again and again (no event dropped for the outage) until the
    # stop, which logged both events as lost
    assert len(sqs.calls) >= 5
    assert not logged(caplog, "an event the events queue did not take in time is dropped")
    (lost,) = logged(caplog, LOST)
    assert sorted(event["event_id"] for event in lost["events"]) == ["e0", "e1"]


LOST = "events not published before the stop"


def test_entries_that_failed_in_a_batch_are_sent_again_and_only_they() -> None:
    # Given SQS fails one entry of the first batch (a server-side failure)
    def partial(entries: list[dict[str, Any]]) -> dict[str, Any]:
        failed = entries[1]["Id"]
        return {
            "Successful": [{"Id": entry["Id"]} for entry in entries if entry["Id"] != failed],
            "Failed": [{"Id": failed, "SenderFault": False, "Code": "InternalError"}],
        }

    async def scenario(sqs: FakeSqs, publisher: EventPublisher) -> None:
        sqs.script.append(partial)
        await publish_all(publisher, 3)

    # When the envelopes are published
    sqs = run(scenario)

    # Then only the failed one goes again
    assert [bodies(call) for call in sqs.calls] == [[0, 1, 2], [1]]


def test_an_entry_sqs_refuses_for_good_is_dropped_and_logged_without_its_body(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Given SQS refuses the middle entry of three as the sender's fault, then more events follow
    def refused(entries: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "Successful": [{"Id": entries[0]["Id"]}, {"Id": entries[2]["Id"]}],
            "Failed": [{"Id": entries[1]["Id"], "SenderFault": True, "Code": "InvalidMessageContents"}],
        }

    async def scenario(sqs: FakeSqs, publisher: EventPublisher) -> None:
        sqs.script.append(refused)
        await publish_all(publisher, 3)
        await asyncio.to_thread(sqs.called.wait, 5)
        await publisher.publish(item(3, text="after"), "t1")

    # When the envelopes are published
    sqs = run(scenario)

    # Then that entry is not sent again, the others and the later event are
    assert [bodies(call) for call in sqs.calls] == [[0, 1, 2], [3]]
    # And the drop is logged with the event's id, name and device, not its body
    (drop,) = logged(caplog, "an event the events queue or the bucket refused for good is dropped")
    assert (drop["event_id"], drop["event"], drop["device_id"], drop["tenant_id"]) == (
        "e1",
        "message.received",
        "d1",
        "t1",
    )
    assert "InvalidMessageContents" in drop["reason"]
    assert "n" not in drop
    assert "data" not in drop


def test_a_full_buffer_makes_the_sink_wait_instead_of_dropping() -> None:
    # Given SQS does not answer, and a buffer of 2 envelopes
    async def scenario(sqs: FakeSqs, publisher: EventPublisher) -> None:
        sqs.gate.clear()
        await publish_all(publisher, 1)  # taken by the sender, which now waits on SQS
        assert await asyncio.to_thread(sqs.called.wait, 5), "the sender never called SQS"
        await publish_all(publisher, 2)  # fills the buffer

        # When one more envelope is published, and it has run as far as it can
        more = asyncio.create_task(publisher.publish(item(99), "t1"))
        for _ in range(10):
            await asyncio.sleep(0)

        # Then it waits (SQS holds the sender, so nothing can free the buffer), and once SQS
        # answers it goes out too
        assert not more.done()
        sqs.gate.set()
        await asyncio.wait_for(more, 5)

    sqs = run(scenario, buffer_size=2)
    assert sorted(n for call in sqs.calls for n in bodies(call)) == [0, 0, 1, 99]


def test_stop_flushes_what_is_buffered() -> None:
    # Given envelopes published just before the stop, with a long linger
    async def scenario(_sqs: FakeSqs, publisher: EventPublisher) -> None:
        await publish_all(publisher, 4)

    # When the publisher stops / Then every envelope was sent first
    sqs = run(scenario, linger=0.5)
    assert [n for call in sqs.calls for n in bodies(call)] == [0, 1, 2, 3]


def test_the_envelope_of_an_event() -> None:
    # Given a network event
    event = NetworkEvent(
        EventName.DEVICE_CONNECTED, {"device_id": "d1", "status": "connected"}, occurred_at=1700000000.9
    )

    # When it is wrapped / Then the envelope has the delivery fields, a whole-second timestamp
    wrapped = envelope(event, "d1")
    assert wrapped.fields() == {
        "id": wrapped.id,
        "event": "device.connected",
        "timestamp": 1700000000,
        "device_id": "d1",
        "data": {"device_id": "d1", "status": "connected"},
    }
    assert len(wrapped.id) == 32
    assert envelope(event, "d1").id != wrapped.id


def sized(number: int, message_bytes: int) -> EventEnvelope:
    """An envelope of emoji (padded with ASCII) whose message, body and attributes, is exactly
    ``message_bytes`` long."""
    bare = len(json.dumps(item(number, text="").fields(), separators=(",", ":")))
    attributes = len("tenant_id") + len("String") + len("t1") + len("event") + len("String")
    attributes += len("message.received")
    text = message_bytes - bare - attributes
    return item(number, text=EMOJI * (text // 12) + "a" * (text % 12))


def test_emoji_heavy_envelopes_go_out_in_batches_sqs_takes_attributes_counted() -> None:
    # Given three emoji envelopes whose bodies make 262,143 bytes together (just within
    # SQS's limit) but not with their message attributes, then 20 of 7,000 emoji (7,000
    # characters but 84 KB as escaped JSON)
    near = [sized(number, SQS_LIMIT // 3 + 44) for number in range(3)]
    assert sum(len(json.dumps(wrapped.fields(), separators=(",", ":"))) for wrapped in near) == SQS_LIMIT - 1

    async def scenario(_sqs: FakeSqs, publisher: EventPublisher) -> None:
        for wrapped in near:
            await publisher.publish(wrapped, "t1")
        for number in range(3, 23):
            await publisher.publish(item(number, text=EMOJI * 7_000), "t1")

    # When they are published
    sqs = run(scenario)

    # Then SQS refused no request (each held at most 256 KiB as it counts them), and every
    # envelope went out inline, once, in order, with its emoji intact
    assert all(sum(map(sqs_size, call)) <= SQS_LIMIT for call in sqs.calls)
    assert len(sqs.calls[0]) == 2
    assert [json.loads(entry["MessageBody"])["id"] for entry in sqs.sent()] == [f"e{n}" for n in range(23)]
    assert json.loads(sqs.sent()[3]["MessageBody"])["data"]["text"] == EMOJI * 7_000


def test_an_envelope_as_large_as_a_message_allows_stays_inline_one_byte_more_goes_to_the_bucket() -> None:
    # Given an envelope whose message, with a redelivery's flag added, is exactly SQS's limit,
    # and one a byte larger
    bucket = FakeBucket()
    largest = SQS_LIMIT - REDELIVERY_FLAG

    async def scenario(_sqs: FakeSqs, publisher: EventPublisher) -> None:
        await publisher.publish(sized(0, largest), "t1")
        await publisher.publish(sized(1, largest + 1), "t1")

    # When they are published
    sqs = run(scenario, bucket=bucket)

    # Then the first travels as it is, at that size, the second as a claim check
    inline, claimed = sqs.sent()
    assert sqs_size(inline) == largest
    assert json.loads(inline["MessageBody"])["id"] == "e0"
    pointer = json.loads(claimed["MessageBody"])
    assert pointer == [
        "software.amazon.payloadoffloading.PayloadS3Pointer",
        {"s3BucketName": get_settings().media_bucket, "s3Key": "events/t1/d1/e1"},
    ]
    stored = bucket.objects["events/t1/d1/e1"]
    assert json.loads(stored) == sized(1, largest + 1).fields()
    assert claimed["MessageAttributes"]["ExtendedPayloadSize"] == {
        "DataType": "Number",
        "StringValue": str(len(stored)),
    }
    assert claimed["MessageAttributes"]["tenant_id"]["StringValue"] == "t1"


def test_an_oversized_envelope_travels_whole_through_the_bucket_and_the_others_inline() -> None:
    # Given three small envelopes around one with a text of 30,000 emoji (360 KB escaped)
    bucket = FakeBucket()
    big = item(1, text=EMOJI * 30_000)

    async def scenario(_sqs: FakeSqs, publisher: EventPublisher) -> None:
        await publisher.publish(item(0), "t1")
        await publisher.publish(big, "t1")
        await publish_all(publisher, 2)

    # When they are published
    sqs = run(scenario, bucket=bucket)

    # Then one request took them all, the big one as a small claim check whose object is the
    # whole envelope
    (call,) = sqs.calls
    assert sum(map(sqs_size, call)) < 4_000
    assert json.loads(bucket.objects["events/t1/d1/e1"]) == big.fields()
    assert [json.loads(entry["MessageBody"]) for entry in call][1][1]["s3Key"] == "events/t1/d1/e1"


def test_a_claimed_envelope_the_bucket_did_not_take_is_retried_without_holding_the_others() -> None:
    # Given a bucket that is unavailable for the first put
    bucket = FakeBucket()
    bucket.failures.append(ClientError({"Error": {"Code": "SlowDown", "Message": "later"}}, "PutObject"))

    async def scenario(_sqs: FakeSqs, publisher: EventPublisher) -> None:
        await publisher.publish(item(0), "t1")
        await publisher.publish(item(1, text=EMOJI * 30_000), "t1")
        await publisher.publish(item(2), "t1")

    # When they are published
    sqs = run(scenario, bucket=bucket)

    # Then the small ones go at once, the big one once the bucket took it
    assert [len(call) for call in sqs.calls] == [2, 1]
    assert bodies(sqs.calls[0]) == [0, 2]
    assert "events/t1/d1/e1" in bucket.objects


def test_a_request_refused_for_an_entry_goes_one_by_one_and_only_that_entry_is_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Given SQS refuses any request holding one poisoned entry (whole requests, as for a bad
    # parameter), and takes the rest
    def poisoned(entries: list[dict[str, Any]]) -> dict[str, Any]:
        if any("poison" in entry["MessageBody"] for entry in entries):
            raise refusal("InvalidParameterValue")
        return {"Successful": [{"Id": entry["Id"]} for entry in entries]}

    async def scenario(sqs: FakeSqs, publisher: EventPublisher) -> None:
        sqs.script.extend([poisoned] * 20)
        for number in range(5):
            await publisher.publish(item(number, text="poison" if number == 2 else ""), "t1")

    # When five envelopes are published
    sqs = run(scenario)

    # Then the batch was refused once, each of its envelopes then went alone, the poisoned one
    # was refused once more and dropped: nothing retried forever, the others all published
    assert [bodies(call) for call in sqs.calls] == [[0, 1, 2, 3, 4], [0], [1], [2], [3], [4]]
    assert [json.loads(entry["MessageBody"])["id"] for entry in sqs.sent()] == ["e0", "e1", "e3", "e4"]
    (drop,) = logged(caplog, "an event the events queue or the bucket refused for good is dropped")
    assert drop["event_id"] == "e2"
    assert "InvalidParameterValue" in drop["reason"]


def test_a_request_larger_than_sqs_takes_is_split_rather_than_retried_forever() -> None:
    # Given SQS measures a message larger than the publisher does (a limit lowered under it):
    # every request of more than one envelope is refused as too long
    def lower_limit(entries: list[dict[str, Any]]) -> dict[str, Any]:
        if len(entries) > 1:
            raise refusal("AWS.SimpleQueueService.BatchRequestTooLong")
        return {"Successful": [{"Id": entries[0]["Id"]}]}

    async def scenario(sqs: FakeSqs, publisher: EventPublisher) -> None:
        sqs.script.extend([lower_limit] * 10)
        await publish_all(publisher, 3)

    # When they are published / Then each goes on its own after the refusal, none is lost
    assert [bodies(call) for call in run(scenario).calls] == [[0, 1, 2], [0], [1], [2]]


def test_the_events_lost_at_a_stop_are_logged_without_their_bodies(caplog: pytest.LogCaptureFixture) -> None:
    # Given SQS does not answer
    sqs = FakeSqs()
    sqs.gate.clear()

    async def main() -> None:
        aws = AwsCalls(4, "test-aws")
        publisher = EventPublisher(sqs, QUEUE, aws, linger=0.01, buffer_size=10, senders=1)
        publisher.start()
        await publisher.publish(item(0, text="secret"), "t1")
        assert await asyncio.to_thread(sqs.called.wait, 5)
        await publisher.publish(item(1, text="secret"), "t1")

        # When the host stops and the flush times out
        await publisher.stop(timeout=0.1)
        sqs.gate.set()
        aws.shutdown()

    asyncio.run(main())

    # Then the envelope still buffered and the one whose send had not returned are named in the
    # log, their content is not
    lost = [event for record in logged(caplog, LOST) for event in record["events"]]
    assert sorted(event["event_id"] for event in lost) == ["e0", "e1"]
    assert "secret" not in json.dumps(lost)
