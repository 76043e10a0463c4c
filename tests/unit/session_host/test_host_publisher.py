"""Publishing event envelopes: batches, retries, partial failures, back-pressure, flush."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from session_host.aws_calls import AwsCalls
from session_host.network.port import NetworkEvent
from session_host.publisher import EventPublisher, envelope

QUEUE = "https://sqs.example/123/events"


class FakeSqs:
    """Records SendMessageBatch calls; ``script`` decides each call's outcome in turn."""

    def __init__(self) -> None:
        self.calls: list[list[dict[str, Any]]] = []
        self.script: list[Callable[[list[dict[str, Any]]], dict[str, Any]]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.called = threading.Event()  # set when a call arrives, before it waits on the gate

    def send_message_batch(self, QueueUrl: str, Entries: list[dict[str, Any]]) -> dict[str, Any]:  # noqa: N803
        assert QueueUrl == QUEUE
        self.called.set()
        self.gate.wait(5)
        self.calls.append(Entries)
        if self.script:
            return self.script.pop(0)(Entries)
        return {"Successful": [{"Id": entry["Id"]} for entry in Entries]}


def item(number: int) -> dict[str, Any]:
    return {
        "id": f"e{number}",
        "event": "message.received",
        "timestamp": 1,
        "device_id": "d1",
        "data": {"n": number},
    }


async def publish_all(publisher: EventPublisher, count: int, tenant: str = "t1") -> None:
    for number in range(count):
        await publisher.publish(item(number), tenant)


def run(
    scenario: Callable[[FakeSqs, EventPublisher], Any], *, buffer_size: int = 100, linger: float = 0.01
) -> FakeSqs:
    sqs = FakeSqs()

    async def main() -> None:
        aws = AwsCalls(4, "test-aws")
        publisher = EventPublisher(sqs, QUEUE, aws, linger=linger, buffer_size=buffer_size, senders=1)
        publisher.start()
        try:
            await scenario(sqs, publisher)
            await publisher.stop(timeout=5)
        finally:
            aws.shutdown()

    asyncio.run(main())
    return sqs


def bodies(entries: list[dict[str, Any]]) -> list[int]:
    return [json.loads(entry["MessageBody"])["data"]["n"] for entry in entries]


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


def test_an_entry_sqs_refuses_for_good_is_not_retried_forever() -> None:
    # Given SQS refuses one entry as the sender's fault (e.g. too large)
    def refused(entries: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "Successful": [{"Id": entries[0]["Id"]}],
            "Failed": [{"Id": entries[1]["Id"], "SenderFault": True, "Code": "InvalidParameterValue"}],
        }

    async def scenario(sqs: FakeSqs, publisher: EventPublisher) -> None:
        sqs.script.append(refused)
        await publish_all(publisher, 2)

    # When the envelopes are published / Then that entry is not sent again
    assert [bodies(call) for call in run(scenario).calls] == [[0, 1]]


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
        "device.connected", {"device_id": "d1", "status": "connected"}, occurred_at=1700000000.9
    )

    # When it is wrapped / Then the envelope has the delivery fields, a whole-second timestamp
    wrapped = envelope(event, "d1")
    assert wrapped == {
        "id": wrapped["id"],
        "event": "device.connected",
        "timestamp": 1700000000,
        "device_id": "d1",
        "data": {"device_id": "d1", "status": "connected"},
    }
    assert len(wrapped["id"]) == 32
    assert envelope(event, "d1")["id"] != wrapped["id"]
