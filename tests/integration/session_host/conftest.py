"""Session hosts on the local stack's moto, with one simulated network playing the phones.

Each test gets command and events queues of its own, so its hosts never share work with
another test's hosts or with a session host of the local stack, and a short lease TTL so
takeovers happen within seconds. Every host of a test shares the test's ``SESSION_DATA_DIR``,
as the hosts of a deployment share their volume.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from host_harness import Events, Harness, Hosts

from gateway.bus import CommandBus, queues
from local_stack.stack import LocalStack
from session_host.network.simulated import SimulatedNetwork


@pytest.fixture
def harness(stack: LocalStack, tmp_path: Path) -> Iterator[Harness]:
    sqs = queues.sqs_client()
    suffix = uuid.uuid4().hex[:12]
    command_queue = sqs.create_queue(QueueName=f"test-host-commands-{suffix}")["QueueUrl"]
    events_queue = sqs.create_queue(QueueName=f"test-host-events-{suffix}")["QueueUrl"]
    network = SimulatedNetwork(qr_lifetimes=(60.0,), reconnect_delay=0.05, timeout_fault_delay=0.05)
    data_dir = tmp_path / "sessions"
    data_dir.mkdir()
    hosts = Hosts(network, data_dir, command_queue, events_queue)
    harness = Harness(hosts, network, CommandBus(sqs, command_queue), Events(events_queue), command_queue)
    yield harness
    hosts.stop_all()
    harness.forget_devices()
    for url in (command_queue, events_queue):
        sqs.delete_queue(QueueUrl=url)
