"""moto with the template's tables, queues and buckets, for a benchmark's own process, and
what the restore benchmarks add to it: a host's queues, the records a dead host left."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from local_stack.aws import create_resources, start_moto
from local_stack.stack import LocalStack
from local_stack.template import load_template, local_resources

DEAD_HOST_QUEUE = "http://dead-host/queue"
"""The queue of the host that died running the seeded devices."""


@contextmanager
def moto_stack(prefix: str) -> Iterator[tuple[LocalStack, dict[str, str]]]:
    """The stack's settings in this process's environment (set before any gateway module is
    imported, which reads them), moto serving its resources; yields the stack and the physical
    names of the resources by logical id. moto stops on leaving."""
    stack = LocalStack(prefix=prefix)
    os.environ.update(stack.environment())
    server, endpoint = start_moto(stack.moto_port)
    try:
        yield stack, create_resources(endpoint, local_resources(load_template()), prefix)
    finally:
        server.stop()


def new_host_queues(prefix: str) -> dict[str, str]:
    """A measured host's own command and events queues, new (no message of an earlier run is
    read), as its setup names them: ``command_queue`` and ``events_queue``."""
    from gateway.bus import queues

    sqs = queues.sqs_client()
    suffix = uuid.uuid4().hex[:8]
    return {
        "command_queue": sqs.create_queue(QueueName=f"{prefix}-commands-{suffix}")["QueueUrl"],
        "events_queue": sqs.create_queue(QueueName=f"{prefix}-events-{suffix}")["QueueUrl"],
    }


def write_dead_host_records(devices: list[dict[str, Any]]) -> None:
    """The records of ``devices`` (``tenant_id``, ``device_id``, ``phone``) as a host that died
    running them left them: wanted connected, logged in, its queue on them, and in the
    ``restorable`` index (``restore_shard``), which a restore pass queries to find them."""
    from gateway.models import DeviceModel
    from gateway.models.devices import restore_shard
    from gateway.timestamps import iso_utc

    now = iso_utc()
    with DeviceModel.batch_write() as batch:
        for device in devices:
            batch.save(
                DeviceModel(
                    device["tenant_id"],
                    device["device_id"],
                    owner_user_id="bench-user",
                    name="bench",
                    status="connected",
                    is_connected=True,
                    is_logged_in=True,
                    messaging_jid=f"{device['phone']}@s.whatsapp.net",
                    host_queue_url=DEAD_HOST_QUEUE,
                    wants_connection=True,
                    restore_shard=restore_shard(
                        device["device_id"], wants_connection=True, is_logged_in=True
                    ),
                    created_at=now,
                    updated_at=now,
                )
            )
