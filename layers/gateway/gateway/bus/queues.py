"""SQS access for the bus, and the queues it creates at run time.

Two kinds of queues are created while the system runs, both named
``<DYNAMIC_QUEUE_PREFIX>-<kind>-<owner>``: each session host's command queue (kind ``h``) and
each API process's reply queue (kind ``r``). Their owners refresh a ``heartbeat`` tag while
they live; :func:`sweep_idle_queues` (run by the session hosts) deletes the queues of owners
that are gone, so neither kind piles up.
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any

from botocore.config import Config
from botocore.exceptions import ClientError

from gateway import aws
from gateway.config import get_settings

HOST_QUEUE = "h"
REPLY_QUEUE = "r"

HEARTBEAT_TAG = "heartbeat"
HEARTBEAT_EVERY_SECONDS = 300
"""Owners refresh their queue's heartbeat this often (at most)."""
IDLE_QUEUE_SECONDS = 1800
"""A dynamic queue whose heartbeat is older than this belongs to an owner that is gone."""

# Long polls last up to 20 s, so reads must be allowed longer than that.
_CLIENT_CONFIG = Config(
    connect_timeout=5,
    read_timeout=30,
    retries={"mode": "standard", "max_attempts": 3},
    max_pool_connections=50,
)

_QUEUE_ATTRIBUTES = {
    # A reply is read once; hiding it for the longest time SQS allows and keeping it for the
    # shortest means it is never seen twice and needs no delete call on the waiting path.
    REPLY_QUEUE: {"VisibilityTimeout": "43200", "MessageRetentionPeriod": "60"},
    # A command whose host dies mid-way shows up again, and is then dropped by its deadline.
    HOST_QUEUE: {"VisibilityTimeout": "60", "MessageRetentionPeriod": "300"},
}


@lru_cache(maxsize=1)
def sqs_client() -> Any:
    """One SQS client per process (clients are thread-safe; building one costs tens of ms)."""
    return aws.client("sqs", _CLIENT_CONFIG)


def is_missing_queue(error: ClientError) -> bool:
    code = error.response.get("Error", {}).get("Code", "")
    return code in {"AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"}


def dynamic_queue_name(kind: str, owner_id: str) -> str:
    return f"{get_settings().dynamic_queue_prefix}-{kind}-{owner_id}"


def dynamic_queue_owner(kind: str, queue_url: str) -> str | None:
    """The owner id named by a queue URL of :func:`dynamic_queue_name`; None for another queue."""
    name = queue_url.rsplit("/", 1)[-1]
    prefix = dynamic_queue_name(kind, "")
    return name.removeprefix(prefix) or None if name.startswith(prefix) else None


def create_dynamic_queue(kind: str, owner_id: str, now: float | None = None) -> str:
    """Create (or find) the owner's queue, with a fresh heartbeat; returns its URL."""
    response = sqs_client().create_queue(
        QueueName=dynamic_queue_name(kind, owner_id),
        Attributes=_QUEUE_ATTRIBUTES[kind],
        tags={HEARTBEAT_TAG: str(int(time.time() if now is None else now))},
    )
    return str(response["QueueUrl"])


def heartbeat(queue_url: str, now: float | None = None) -> bool:
    """Mark the queue as still in use; ``False`` if it no longer exists."""
    try:
        sqs_client().tag_queue(
            QueueUrl=queue_url, Tags={HEARTBEAT_TAG: str(int(time.time() if now is None else now))}
        )
    except ClientError as error:
        if is_missing_queue(error):
            return False
        raise
    return True


def delete_queue(queue_url: str) -> None:
    try:
        sqs_client().delete_queue(QueueUrl=queue_url)
    except ClientError as error:
        if not is_missing_queue(error):
            raise


def sweep_idle_queues(now: float | None = None, idle_seconds: float = IDLE_QUEUE_SECONDS) -> list[str]:
    """Delete dynamic queues whose heartbeat is older than ``idle_seconds``; returns their URLs."""
    now = time.time() if now is None else now
    client = sqs_client()
    deleted: list[str] = []
    for page in client.get_paginator("list_queues").paginate(
        QueueNamePrefix=f"{get_settings().dynamic_queue_prefix}-"
    ):
        for url in page.get("QueueUrls", []):
            try:
                tags = client.list_queue_tags(QueueUrl=url).get("Tags", {})
            except ClientError as error:
                if is_missing_queue(error):
                    continue
                raise
            beat = float(tags.get(HEARTBEAT_TAG, "0"))
            if now - beat > idle_seconds:
                delete_queue(url)
                deleted.append(url)
    return deleted
