"""Command bus round trip against the raw SQS transport floor, measured in one run.

    .venv/bin/python -m bench.bus [--rounds N] [--per-round K]

One moto server (the template's queues, as the local stack makes them) carries both:

* **floor**: two SQS sends and two receives against the same endpoint, with nothing else: the
  caller sends to queue A and long-polls queue B; an echo thread long-polls A and sends
  each body to B. This is the least any request/reply over SQS can cost here.
* **bus**: ``CommandBus.request(PING)`` from an API-side bus to a real ``SessionHost`` (on the
  simulated network, its own thread and loop), through the host's command queue and the
  bus's reply queue: what an API function does for a device that a host runs.

Samples alternate between the two (order shuffled per round) so drifts of a shared machine
hit both alike. The bench prints medians and p90 and exits 1 when the bus's median exceeds
1.5x the floor's, the target of the design (docs/architecture.md, "Command bus").
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from local_stack.aws import create_resources, start_moto
from local_stack.stack import LocalStack
from local_stack.template import load_template, local_resources

PREFIX = "benchbus"
TARGET_RATIO = 1.5


class Floor:
    """Raw request/reply over two queues: send, receive, send, receive."""

    def __init__(self, sqs: Any) -> None:
        self._sqs = sqs
        self._a = sqs.create_queue(QueueName=f"{PREFIX}-floor-a")["QueueUrl"]
        self._b = sqs.create_queue(QueueName=f"{PREFIX}-floor-b")["QueueUrl"]
        self._stopped = threading.Event()
        self._echo = threading.Thread(target=self._run_echo, name="floor-echo", daemon=True)
        self._echo.start()

    def _run_echo(self) -> None:
        while not self._stopped.is_set():
            response = self._sqs.receive_message(QueueUrl=self._a, MaxNumberOfMessages=10, WaitTimeSeconds=1)
            for message in response.get("Messages", []):
                self._sqs.send_message(QueueUrl=self._b, MessageBody=message["Body"])

    def round_trip(self) -> None:
        body = f"ping-{random.random()}"
        self._sqs.send_message(QueueUrl=self._a, MessageBody=body)
        while True:
            response = self._sqs.receive_message(QueueUrl=self._b, MaxNumberOfMessages=1, WaitTimeSeconds=20)
            if any(message["Body"] == body for message in response.get("Messages", [])):
                return

    def stop(self) -> None:
        self._stopped.set()
        self._echo.join(timeout=5)


def sample(operation: Callable[[], None], count: int) -> list[float]:
    times = []
    for _ in range(count):
        began = time.perf_counter()
        operation()
        times.append((time.perf_counter() - began) * 1000)
    return times


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bus", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="alternations of the two (default 10)")
    parser.add_argument("--per-round", type=int, default=20, help="round trips per side and round (20)")
    args = parser.parse_args(argv)

    stack = LocalStack(prefix=PREFIX)
    os.environ.update(stack.environment())  # before any gateway module is imported
    server, endpoint = start_moto(stack.moto_port)
    try:
        create_resources(endpoint, local_resources(load_template()), PREFIX)
        run(args.rounds, args.per_round)
    finally:
        server.stop()


def run(rounds: int, per_round: int) -> None:
    from gateway.bus import CommandBus, CommandName
    from gateway.bus.queues import sqs_client
    from gateway.config import get_settings
    from session_host.config import HostSettings
    from session_host.host import SessionHost
    from session_host.host_thread import HostThread
    from session_host.network.simulated import SimulatedNetwork, SimulatedPort

    sqs = sqs_client()
    floor = Floor(sqs)
    with tempfile.TemporaryDirectory() as data_dir:
        host = HostThread(
            SessionHost(port=SimulatedPort(SimulatedNetwork()), settings=HostSettings(data_dir=data_dir))
        ).start()
        bus = CommandBus(sqs, get_settings().command_queue_url)

        def bus_round_trip() -> None:
            reply = bus.request(
                CommandName.PING, tenant_id="bench", device_id="bench", host_queue_url=host.host.queue_url
            )
            assert reply.ok, reply

        try:
            # Warm-up: the reply queue is created, connections are pooled, code paths are loaded.
            sample(floor.round_trip, 5)
            sample(bus_round_trip, 5)
            results: dict[str, list[float]] = {"floor": [], "bus": []}
            sides = {"floor": floor.round_trip, "bus": bus_round_trip}
            for _ in range(rounds):
                for name in random.sample(list(sides), k=2):
                    results[name].extend(sample(sides[name], per_round))
        finally:
            host.stop()
            floor.stop()
    report(results)


def report(results: dict[str, list[float]]) -> None:
    floor, bus = statistics.median(results["floor"]), statistics.median(results["bus"])
    print(f"round trips per side: {len(results['floor'])}")
    print(f"{'':6} {'median ms':>10} {'p90 ms':>8}")
    for name in ("floor", "bus"):
        print(f"{name:6} {statistics.median(results[name]):10.2f} {p90(results[name]):8.2f}")
    ratio = bus / floor
    print(f"bus / floor (medians): {ratio:.2f}x (target <= {TARGET_RATIO}x)")
    if ratio > TARGET_RATIO:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
