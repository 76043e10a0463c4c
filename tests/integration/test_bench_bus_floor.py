"""bench/bus's floor meets queues shaped as the bus's: what it echoed leaves its command
queue, and its replies stay hidden in the reply queue it is given (the bus's own).

moto looks at every message a queue holds on each send and receive: a floor that left its
echoed commands in A sent them all again once A's visibility timeout passed, and a floor on a
reply queue of its own saw a third of the depth the bus's reply queue has."""

from __future__ import annotations

import uuid

from waiting import wait_until

from bench.bus import Floor
from gateway.bus import queues
from local_stack.stack import LocalStack

ROUND_TRIPS = 3


def _depth(url: str) -> tuple[int, int]:
    """(visible, hidden) messages of the queue at ``url``."""
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    found = queues.sqs_client().get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return int(found[names[0]]), int(found[names[1]])


def test_the_floor_deletes_what_it_echoed_and_replies_on_the_given_queue(stack: LocalStack) -> None:
    sqs = queues.sqs_client()
    # Hidden for 12 h once received, as the bus's reply queue; outside the run-time prefix.
    name = f"bench-floor-replies-{uuid.uuid4().hex[:8]}"
    replies = sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "43200"})["QueueUrl"]
    floor = Floor(sqs, replies)
    try:
        for _ in range(ROUND_TRIPS):
            floor.round_trip()
        wait_until(lambda: _depth(floor.queue_url) == (0, 0), what="the echoed commands deleted")
        assert _depth(replies) == (0, ROUND_TRIPS)
    finally:
        floor.stop()
        queues.delete_queue(floor.queue_url)
        queues.delete_queue(replies)
