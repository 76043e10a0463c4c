"""Command bus round trip against the raw SQS transport floor, measured in one run.

    .venv/bin/python -m bench.bus [--rounds N] [--per-round K]

One moto server (the template's queues, as the local stack makes them) carries both:

* **floor**: two SQS sends and two receives against the same endpoint, with nothing else: the
  caller sends to queue A and long-polls queue B; an echo thread long-polls A, sends each
  body to B and deletes what it echoed. A is made as a host's command queue is, and B is the
  bus's own reply queue, so both sides meet queues of the same depth (see :class:`Floor`).
  This is the least any request/reply over SQS can cost here.
* **bus**: ``CommandBus.request(PING)`` from an API-side bus to a real ``SessionHost`` (on the
  simulated network, its own thread and loop), through the host's command queue and the
  bus's reply queue: what an API function does for a device that a host runs.
* **group read** / **group change**: ``GROUP_INFO`` of a group of 20 people, and
  ``UPDATE_GROUP`` (a new topic each time, with the admin check and the group.info event to
  the device) on a connected device that the same host runs.

Samples alternate between the sides (order shuffled per round) so drifts of a shared machine
hit all alike. The bench prints medians and p90 and exits 1 when the bus's median exceeds
1.2x the floor's (issue 23, docs/command-bus.md) or a group operation's exceeds 1.2x the bus's
(issue 9).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from bench._stack import moto_stack

PREFIX = "benchbus"
TARGET_RATIO = 1.2
GROUP_TARGET_RATIO = 1.2
DEVICE_PHONE = "15550009000"
MEMBER_PHONES = [f"155500091{n:02d}" for n in range(19)]


class Floor:
    """Raw request/reply over queues shaped as the bus's: send, receive, send, receive.

    Queue A is a command queue as a host's is, and the echo deletes what it echoed, as a host
    deletes the commands it handled; B is the bus's own reply queue. moto keeps a received
    message it hides and looks at every one on each send and receive (SQS does not): on a
    queue of its own the floor would see a third of the hidden replies the bus's queue holds
    (the bus and both group sides reply there) and bill the difference to the bus.
    """

    def __init__(self, sqs: Any, reply_queue_url: str) -> None:
        from gateway.bus import queues

        self._sqs = sqs
        self.queue_url = queues.create_dynamic_queue(queues.HOST_QUEUE, "floor")  # A
        self._b = reply_queue_url
        self._stopped = threading.Event()
        self._echo = threading.Thread(target=self._run_echo, name="floor-echo", daemon=True)
        self._echo.start()

    def _run_echo(self) -> None:
        while not self._stopped.is_set():
            response = self._sqs.receive_message(
                QueueUrl=self.queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1
            )
            messages = response.get("Messages", [])
            for message in messages:
                self._sqs.send_message(QueueUrl=self._b, MessageBody=message["Body"])
            if messages:
                entries = [
                    {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"]}
                    for index, message in enumerate(messages)
                ]
                self._sqs.delete_message_batch(QueueUrl=self.queue_url, Entries=entries)

    def round_trip(self) -> None:
        body = f"ping-{random.random()}"
        self._sqs.send_message(QueueUrl=self.queue_url, MessageBody=body)
        while True:
            response = self._sqs.receive_message(QueueUrl=self._b, MaxNumberOfMessages=1, WaitTimeSeconds=20)
            if any(message["Body"] == body for message in response.get("Messages", [])):
                return

    def stop(self) -> None:
        self._stopped.set()
        self._echo.join(timeout=5)


def sample(operation: Callable[[], None], count: int, gap: float = 0.0) -> list[float]:
    """Milliseconds of each call, with ``gap`` seconds of rest after each (untimed)."""
    times = []
    for _ in range(count):
        began = time.perf_counter()
        operation()
        times.append((time.perf_counter() - began) * 1000)
        time.sleep(gap)
    return times


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bus", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="alternations of the two (default 10)")
    parser.add_argument("--per-round", type=int, default=20, help="round trips per side and round (20)")
    args = parser.parse_args(argv)

    with moto_stack(PREFIX):
        run(args.rounds, args.per_round)


def run(rounds: int, per_round: int) -> None:
    from gateway.bus import CommandBus, contracts
    from gateway.bus.contracts.groups import GroupRef, GroupSettingsArgs, UpdateGroupArgs
    from gateway.bus.queues import sqs_client
    from gateway.config import get_settings
    from session_host.config import HostSettings
    from session_host.host import SessionHost
    from session_host.host_thread import HostThread
    from session_host.network.simulated import SimulatedNetwork, SimulatedPort

    sqs = sqs_client()
    network = SimulatedNetwork()
    with tempfile.TemporaryDirectory() as data_dir:
        settings = HostSettings(data_dir=data_dir)
        host = HostThread(SessionHost(port=SimulatedPort(network), settings=settings)).start()
        bus = CommandBus(sqs, get_settings().command_queue_url)

        def request(contract: Any, device_id: str = "bench", args: Any = None) -> Any:
            reply = bus.request(
                contract, args, tenant_id="bench", device_id=device_id, host_queue_url=host.host.queue_url
            )
            assert reply.ok, reply
            return reply.result

        floor: Floor | None = None
        try:
            device_id, group_jid = _group_of_a_connected_device(network, request)
            floor = Floor(sqs, _reply_queue_url(sqs))
            topics = iter(range(10**9))

            def ping() -> None:
                request(contracts.PING)

            def group_read() -> None:
                request(contracts.GROUP_INFO, device_id, GroupRef(group_jid=group_jid))

            def group_change() -> None:
                topic = GroupSettingsArgs(topic=f"topic {next(topics)}")
                request(
                    contracts.UPDATE_GROUP, device_id, UpdateGroupArgs(group_jid=group_jid, settings=topic)
                )

            sides: dict[str, Callable[[], None]] = {
                "floor": floor.round_trip,
                "bus": ping,
                "group read": group_read,
                "group change": group_change,
            }
            for side in sides.values():  # warm-up: the reply queue, pooled connections, loaded code
                sample(side, 5)
            results: dict[str, list[float]] = {name: [] for name in sides}
            for _ in range(rounds):
                for name in random.sample(list(sides), k=len(sides)):
                    results[name].extend(sample(sides[name], per_round))
        finally:
            host.stop()
            if floor is not None:
                floor.stop()
    report(results)


def _reply_queue_url(sqs: Any) -> str:
    """The one reply queue of this process (its bus made it on its first request)."""
    from gateway.bus import queues

    prefix = queues.dynamic_queue_name(queues.REPLY_QUEUE, "")
    urls = sqs.list_queues(QueueNamePrefix=prefix).get("QueueUrls", [])
    if len(urls) != 1:
        raise RuntimeError(f"expected the bus's one reply queue, found {urls}")
    return str(urls[0])


def _group_of_a_connected_device(network: Any, request: Callable[..., Any]) -> tuple[str, str]:
    """A device record, its session paired by a simulated phone, and a group of 20 it administers."""
    import uuid
    from datetime import UTC, datetime

    from gateway.bus import contracts
    from gateway.bus.contracts.groups import CreateGroupArgs
    from gateway.models import DeviceModel

    device_id, now = str(uuid.uuid4()), datetime.now(UTC).isoformat()
    record = DeviceModel("bench", device_id, owner_user_id="u", name="bench", created_at=now, updated_at=now)
    record.save()
    request(contracts.CONNECT, device_id)
    _wait(lambda: DeviceModel.get("bench", device_id).status == "pairing")
    network.scan(device_id, DEVICE_PHONE)
    _wait(lambda: DeviceModel.get("bench", device_id).status == "connected")
    for phone in MEMBER_PHONES:
        network.create_account(phone)
    people = [f"{phone}@s.whatsapp.net" for phone in MEMBER_PHONES]
    created = request(contracts.CREATE_GROUP, device_id, CreateGroupArgs(name="bench", participants=people))
    return device_id, created.group.jid


def _wait(condition: Callable[[], bool], seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the bench device did not get there in time")
        time.sleep(0.05)


def report(results: dict[str, list[float]]) -> None:
    medians = {name: statistics.median(values) for name, values in results.items()}
    print(f"round trips per side: {len(results['floor'])}")
    print(f"{'':13} {'median ms':>10} {'p90 ms':>8}")
    for name, values in results.items():
        print(f"{name:13} {medians[name]:10.2f} {p90(values):8.2f}")
    ratios = {
        "bus / floor": (medians["bus"] / medians["floor"], TARGET_RATIO),
        "group read / bus": (medians["group read"] / medians["bus"], GROUP_TARGET_RATIO),
        "group change / bus": (medians["group change"] / medians["bus"], GROUP_TARGET_RATIO),
    }
    for label, (ratio, target) in ratios.items():
        print(f"{label} (medians): {ratio:.2f}x (target <= {target}x)")
    if any(ratio > target for ratio, target in ratios.values()):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
