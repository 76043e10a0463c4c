"""What the session host logs of an event it gives up: which event (id, name, tenant, device,
size and why), never the event's data, where a message's text is."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from log_capture import logged, said

from gateway.webhooks.events_queue import EventEnvelope
from session_host.aws_calls import AwsCalls
from session_host.publisher import EventPublisher

QUEUE = "https://sqs.example/123/events"
SECRET = "the tenant's words, not the operator's"
Answer = Callable[[list[dict[str, Any]]], dict[str, Any]]


class FakeSqs:
    """SendMessageBatch answered by ``answer`` (all sent by default), once ``gate`` is open."""

    def __init__(self, answer: Answer | None = None) -> None:
        self.answer = answer or (lambda entries: {"Successful": [{"Id": e["Id"]} for e in entries]})
        self.gate = threading.Event()
        self.gate.set()
        self.called = threading.Event()

    def send_message_batch(self, QueueUrl: str, Entries: list[dict[str, Any]]) -> dict[str, Any]:  # noqa: N803
        self.called.set()
        self.gate.wait(5)
        return self.answer(Entries)


def envelope(number: int) -> EventEnvelope:
    data = {"content": f"{SECRET} #{number}", "message_type": "text"}
    return EventEnvelope.model_validate(
        {
            "id": f"event-{number}",
            "event": "message.received",
            "timestamp": 1,
            "device_id": "d1",
            "data": data,
        }
    )


def publish_then_stop(sqs: FakeSqs, *, count: int, stop_timeout: float) -> None:
    async def main() -> None:
        aws = AwsCalls(2, "test-aws")
        publisher = EventPublisher(sqs, QUEUE, aws, linger=0.01, buffer_size=10, senders=1)
        publisher.start()
        try:
            await publisher.publish(envelope(0), "t1")
            assert await asyncio.to_thread(sqs.called.wait, 5), "the sender never called SQS"
            for number in range(1, count):  # buffered behind the first batch
                await publisher.publish(envelope(number), "t1")
            await publisher.stop(timeout=stop_timeout)
        finally:
            sqs.gate.set()
            aws.shutdown()

    asyncio.run(main())


def test_an_event_sqs_refuses_is_logged_by_id_never_by_its_data() -> None:
    # Given SQS refuses an envelope for good
    sqs = FakeSqs(
        lambda entries: {
            "Failed": [{"Id": entries[0]["Id"], "SenderFault": True, "Code": "InvalidParameterValue"}]
        }
    )

    # When it is published
    with logged() as records:
        publish_then_stop(sqs, count=1, stop_timeout=5)

    # Then the log names the event, its tenant and device, and says nothing of its content
    dropped = "an event the events queue or the bucket refused for good is dropped"
    (refused,) = [r for r in records if r.getMessage() == dropped]
    assert (refused.event_id, refused.event, refused.tenant_id, refused.device_id) == (  # type: ignore[attr-defined]
        "event-0",
        "message.received",
        "t1",
        "d1",
    )
    assert "InvalidParameterValue" in refused.reason  # type: ignore[attr-defined]
    assert not [r for r in records if SECRET in said(r)]


def test_events_left_unsent_at_a_stop_are_logged_by_id_never_by_their_data() -> None:
    # Given SQS that does not answer, so the stop's flush runs out of time
    sqs = FakeSqs()
    sqs.gate.clear()

    # When three envelopes are published and the publisher stops
    with logged() as records:
        publish_then_stop(sqs, count=3, stop_timeout=0.3)

    # Then the ones still buffered and the one whose send had not returned are listed by id,
    # and their content is in no log line
    stop_lines = [r for r in records if r.getMessage() == "events not published before the stop"]
    lost = [event for line in stop_lines for event in line.events]  # type: ignore[attr-defined]
    assert sorted(event["event_id"] for event in lost) == ["event-0", "event-1", "event-2"]
    assert all(event["device_id"] == "d1" and event["message_bytes"] > 0 for event in lost)
    assert not [r for r in records if SECRET in said(r)]
