"""``python -m session_host`` as a process: it serves commands, is healthy, and stops cleanly
on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

from host_harness import Harness, wait_until

from gateway.bus import CommandName, queues


def healthcheck(env: dict[str, str]) -> int:
    return subprocess.run([sys.executable, "-m", "session_host.healthcheck"], env=env, check=False).returncode


def test_the_host_process_answers_is_healthy_and_stops_cleanly_on_sigterm(
    harness: Harness, tmp_path: Path
) -> None:
    # Given the host started as the container starts it, on the test's queues
    host_id = uuid.uuid4().hex[:16]
    env = {
        **os.environ,
        "SESSION_HOST_ID": host_id,
        "SESSION_DATA_DIR": str(tmp_path / "sessions"),
        "SESSION_HOST_LIVENESS_FILE": str(tmp_path / "host.alive"),
        "COMMAND_QUEUE_URL": harness.command_queue,
        "EVENTS_QUEUE_URL": harness.hosts.events_queue,
        "NETWORK_ADAPTER": "simulated",
    }
    process = subprocess.Popen([sys.executable, "-m", "session_host"], env=env)
    try:
        # When a command arrives on the shared queue
        ping = harness.send(CommandName.PING, harness.new_device(), timeout=20)

        # Then that host answers, and its health check passes
        assert ping.ok
        assert ping.result == {"host_id": host_id}
        wait_until(lambda: healthcheck(env) == 0, what="healthy host")
        own_queue = queues.sqs_client().get_queue_url(
            QueueName=queues.dynamic_queue_name(queues.HOST_QUEUE, host_id)
        )

        # When the container is stopped
        process.send_signal(signal.SIGTERM)
        returncode = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()

    # Then the host stops cleanly: exit 0, its queue deleted, no longer healthy
    assert returncode == 0
    remaining = queues.sqs_client().list_queues(
        QueueNamePrefix=queues.dynamic_queue_name(queues.HOST_QUEUE, host_id)
    )
    assert own_queue["QueueUrl"] not in remaining.get("QueueUrls", [])
    assert healthcheck(env) == 1
