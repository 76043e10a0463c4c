"""Webhook delivery throughput and latency, from the events queue to a receiver on loopback.

    .venv/bin/python -m bench.delivery [--burst 2000] [--rounds 2] [--paced 150] [--rate 50] [--slow-every 50]

One moto server (the template's tables and queues, as the local stack makes them), one
webhook configuration written straight to its table, the local delivery worker running the
delivery function's real handler, and an HTTP receiver on loopback answering 204:

* **burst**: ``--burst`` envelopes are published at once (SendMessageBatch, as the session
  host publishes); events delivered per second = events / (last receipt - first publication).
* **floor**: the same burst through the simplest loop making the same calls: receive 10 from a
  queue of its own, POST each (one keep-alive connection), write the log items 25 to a
  BatchWriteItem, delete the 10. Nothing is read, signed, parsed or decided; the items and
  bodies are made beforehand. Burst and floor alternate ``--rounds`` times; the best of each
  is reported (other processes share the machine).
* **paced**: ``--paced`` envelopes published one at a time at ``--rate`` per second, so the
  queue is never backed up; latency = receipt at the receiver - publication (after the
  SendMessage call returned), p50 and p90. It includes the batching window.
* **slow** (only with ``--slow-every N``): the burst again, but one event in N is for a second
  device whose receiver takes ``SLOW_SECONDS`` to answer, as receivers on the internet do;
  events per second of the other events = their count / (their last receipt - publication).

The last line is the headline: ``delivery: N events/s (target >= 500), floor M events/s``, with
the effective target (0.8 x the floor) appended when the floor is below 625 events/s.

Everything runs in this one process (moto included), so the figures are those of one Python
process sharing its cores between the queue, the table, the worker and the receiver.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench._stack import moto_stack

PREFIX = "benchdelivery"
TENANT, DEVICE, SLOW_DEVICE = "bench-tenant", "bench-device", "bench-slow-device"
SLOW_SECONDS = 2.0  # how long the slow device's receiver takes to answer
TARGET, FLOOR_RULE, FLOOR_SHARE = 500, 625, 0.8  # events/s; below FLOOR_RULE the target is 0.8 x floor


class Receipts:
    """When each event id first reached the receiver (time.perf_counter())."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}
        self.changed = threading.Condition()

    def add(self, event_id: str, now: float) -> None:
        with self.changed:
            self.at.setdefault(event_id, now)
            self.changed.notify_all()

    def wait(self, ids: set[str], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not ids <= self.at.keys():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    missing = ids - self.at.keys()
                    raise SystemExit(
                        f"only {len(ids) - len(missing)} of {len(ids)} events arrived; missing:\n"
                        + "\n".join(where_is(event_id) for event_id in sorted(missing)[:10])
                    )
                self.changed.wait(remaining)


def where_is(event_id: str) -> str:
    """Where a missing event is: on a queue (moto runs in this process), in the log, or nowhere
    (a message moto lost, or one deleted without a POST)."""
    from moto.sqs.models import sqs_backends

    from gateway.models.webhooks import DeliveryModel

    places = [
        f"{name}: receive count {message.approximate_receive_count}, "
        f"{'visible' if message.visible else 'invisible'}"
        for backend in (b for regions in sqs_backends.values() for b in regions.values())
        for name, queue in backend.queues.items()
        for message in list(queue._messages)
        if event_id in message.body
    ]
    places += [
        f"log {item.delivery_key}: {item.status}, attempt {item.attempt}, {item.error or item.status_code}"
        for item in DeliveryModel.query(DEVICE, DeliveryModel.delivery_key.startswith("event#" + event_id))
    ]
    return f"  {event_id}: " + ("; ".join(places) or "on no queue and not in the delivery log")


def start_receiver(receipts: Receipts) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            receipts.add(json.loads(body)["id"], time.perf_counter())
            if self.path == "/slow":
                time.sleep(SLOW_SECONDS)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 1024  # a real server's backlog: 5 (the default) resets bursts of connects

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def envelope_entry(index: int, device: str = DEVICE) -> tuple[str, dict[str, Any]]:
    event_id = uuid.uuid4().hex
    envelope = {
        "id": event_id,
        "event": "message.received",
        "timestamp": int(time.time()),
        "device_id": device,
        "data": {"message_id": f"BENCH{index}", "content": "hello from the bench"},
    }
    return event_id, {
        "Id": str(index % 10),
        "MessageBody": json.dumps(envelope),
        "MessageAttributes": {
            "tenant_id": {"DataType": "String", "StringValue": TENANT},
            "event": {"DataType": "String", "StringValue": "message.received"},
        },
    }


def publish_burst(
    sqs: Any, queue_url: str, entries: list[tuple[str, dict[str, Any]]]
) -> tuple[float, dict[str, float]]:
    """Publish the entries at once, 10 to a SendMessageBatch on 4 threads; (start, published at)."""
    batches = [entries[start : start + 10] for start in range(0, len(entries), 10)]
    published: dict[str, float] = {}

    def send(batch: list[tuple[str, dict[str, Any]]]) -> None:
        answer = sqs.send_message_batch(QueueUrl=queue_url, Entries=[entry for _, entry in batch])
        if answer.get("Failed"):  # never published: not the worker's to deliver
            raise SystemExit(f"publishing failed: {answer['Failed']}")
        now = time.perf_counter()
        published.update({event_id: now for event_id, _ in batch})

    began = time.perf_counter()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(send, batches))
    return began, published


def burst(
    sqs: Any, queue_url: str, receipts: Receipts, count: int, wait: float = 600
) -> tuple[float, float, float]:
    """(events per second, per CPU second of the process, p50 latency ms) of ``count`` events
    published at once."""
    entries = [envelope_entry(index) for index in range(count)]
    cpu = time.process_time()
    began, published = publish_burst(sqs, queue_url, entries)
    ids = {event_id for event_id, _ in entries}
    receipts.wait(ids, timeout=wait)
    last = max(receipts.at[event_id] for event_id in ids)
    latencies = [(receipts.at[event_id] - published[event_id]) * 1000 for event_id in ids]
    cpu = time.process_time() - cpu
    return count / (last - began), count / cpu, statistics.median(latencies)


def slow_burst(sqs: Any, queue_url: str, receipts: Receipts, count: int, every: int) -> tuple[float, float]:
    """(events per second, p50 latency ms) of the events of ``count`` published at once that are
    not among the one in ``every`` for the slow receiver."""
    entries = [envelope_entry(i, SLOW_DEVICE if i % every == 0 else DEVICE) for i in range(count)]
    began, published = publish_burst(sqs, queue_url, entries)
    receipts.wait({event_id for event_id, _ in entries}, timeout=600)
    fast = [event_id for index, (event_id, _) in enumerate(entries) if index % every]
    last = max(receipts.at[event_id] for event_id in fast)
    latencies = [(receipts.at[event_id] - published[event_id]) * 1000 for event_id in fast]
    return len(fast) / (last - began), statistics.median(latencies)


def floor(sqs: Any, queue_url: str, receiver_port: int, count: int) -> tuple[float, float]:
    """Events per second (and per CPU second of the process) of the simplest loop making the
    worker's calls for ``count`` events."""
    from gateway.models.base import transaction_connection
    from gateway.models.webhooks import DeliveryModel

    entries = [envelope_entry(index) for index in range(count)]
    bodies: dict[str, bytes] = {}
    items: dict[str, list[dict[str, Any]]] = {}
    now = time.time()
    for event_id, entry in entries:  # made beforehand: the floor is the calls alone
        bodies[event_id] = entry["MessageBody"].encode()
        fields = {
            "tenant_id": TENANT,
            "event_id": event_id,
            "event": "message.received",
            "status": "delivered",
            "attempt": 1,
            "status_code": 204,
            "duration_ms": 1,
            "webhook_url": "http://127.0.0.1/hook",
            "attempted_at": "2026-01-01T00:00:00.000Z",
            "expires_at": int(now) + 30 * 24 * 3600,
        }
        items[event_id] = [
            DeliveryModel(DEVICE, f"attempt#{int(now * 1000):013d}#{event_id}#01", **fields).serialize(),
            DeliveryModel(DEVICE, f"event#{event_id}", envelope=entry["MessageBody"], **fields).serialize(),
        ]
    dynamodb = transaction_connection().client  # as the delivery log's writer does
    table = DeliveryModel.Meta.table_name
    receiver = http.client.HTTPConnection("127.0.0.1", receiver_port)
    cpu = time.process_time()
    began, _ = publish_burst(sqs, queue_url, entries)
    pending: list[dict[str, Any]] = []
    done = 0
    while done < count:
        messages = sqs.receive_message(  # the attributes the worker asks for: the same call
            QueueUrl=queue_url,
            MaxNumberOfMessages=10,
            MessageSystemAttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        for message in messages:
            event_id = json.loads(message["Body"])["id"]
            receiver.request("POST", "/hook", bodies[event_id], {"Content-Type": "application/json"})
            receiver.getresponse().read()
            pending += items[event_id]
        while len(pending) >= 25 or (pending and done + len(messages) == count):
            puts = [{"PutRequest": {"Item": item}} for item in pending[:25]]
            dynamodb.batch_write_item(RequestItems={table: puts})
            pending = pending[25:]
        if messages:
            sqs.delete_message_batch(
                QueueUrl=queue_url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)],
            )
        done += len(messages)
    receiver.close()
    return count / (time.perf_counter() - began), count / (time.process_time() - cpu)


def paced(sqs: Any, queue_url: str, receipts: Receipts, count: int, rate: float) -> list[float]:
    """Latencies (ms) of ``count`` events published one by one at ``rate`` per second."""
    latencies: dict[str, float] = {}
    next_at = time.perf_counter()
    for index in range(count):
        event_id, entry = envelope_entry(index)
        entry.pop("Id")
        sqs.send_message(QueueUrl=queue_url, **entry)
        latencies[event_id] = time.perf_counter()
        next_at += 1 / rate
        time.sleep(max(0.0, next_at - time.perf_counter()))
    receipts.wait(set(latencies), timeout=120)
    return [(receipts.at[event_id] - sent) * 1000 for event_id, sent in latencies.items()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.delivery", description=__doc__.split("\n\n")[0])
    parser.add_argument("--burst", type=int, default=2000, help="events published at once (2000)")
    parser.add_argument("--rounds", type=int, default=1, help="burst and floor alternate this often (1)")
    parser.add_argument("--paced", type=int, default=150, help="events published one by one (150)")
    parser.add_argument("--rate", type=float, default=50.0, help="their rate per second (50)")
    parser.add_argument("--wait", type=float, default=600.0, help="seconds a burst may take (600)")
    parser.add_argument(
        "--slow-every",
        type=int,
        default=0,
        help=f"then a burst with one event in N for a {SLOW_SECONDS:g} s receiver",
    )
    args = parser.parse_args(argv)

    with moto_stack(PREFIX):
        run(args.burst, args.rounds, args.paced, args.rate, args.wait, args.slow_every)


def run(
    burst_count: int, rounds: int, paced_count: int, rate: float, wait: float = 600, slow_every: int = 0
) -> None:
    from gateway.bus.queues import sqs_client
    from gateway.config import get_settings
    from gateway.models.webhooks import WebhookModel
    from gateway.webhooks.catalog import CATALOG
    from local_stack import moto_fixes
    from local_stack.delivery_worker import DeliveryWorker

    moto_fixes.apply()  # as the local stack does

    receipts = Receipts()
    receiver = start_receiver(receipts)
    for device, path in ((DEVICE, "/hook"), (SLOW_DEVICE, "/slow")):
        WebhookModel(
            TENANT,
            device,
            webhook_id=f"bench-{path[1:]}",
            webhook_url=f"http://127.0.0.1:{receiver.server_address[1]}{path}",
            enabled_events=set(CATALOG),
            secret=uuid.uuid4().hex,  # signing is part of every delivery
            headers={"Authorization": "Bearer bench"},
            created_at="2026-01-01T00:00:00.000Z",
            updated_at="2026-01-01T00:00:00.000Z",
        ).save()
    sqs, queue_url = sqs_client(), get_settings().events_queue_url
    floor_queue = sqs.create_queue(QueueName=f"{PREFIX}-floor")["QueueUrl"]
    port = receiver.server_address[1]
    worker = DeliveryWorker(queue_url).start()
    rates: list[float] = []
    floors: list[float] = []
    try:
        paced(sqs, queue_url, receipts, 20, rate)  # warm-up: clients, pools, code paths
        floor(sqs, floor_queue, port, 100)
        for _ in range(rounds):
            floor_rate, floor_cpu = floor(sqs, floor_queue, port, burst_count)
            throughput, cpu_rate, burst_p50 = burst(sqs, queue_url, receipts, burst_count, wait)
            floors.append(floor_rate)
            rates.append(throughput)
            print(
                f"burst: {burst_count} events, {throughput:.0f} events/s delivered "
                f"(p50 latency {burst_p50:.0f} ms); floor {floor_rate:.0f} events/s",
                flush=True,
            )
            print(
                f"cpu: {cpu_rate:.0f} events per CPU second of the process, floor {floor_cpu:.0f} "
                f"({cpu_rate / floor_cpu:.2f} x)",
                flush=True,
            )
        latencies = paced(sqs, queue_url, receipts, paced_count, rate)
        if slow_every:
            slow_rate, slow_p50 = slow_burst(sqs, queue_url, receipts, burst_count, slow_every)
            print(
                f"slow: {burst_count} events, one in {slow_every} for a receiver taking {SLOW_SECONDS:g} s: "
                f"the others at {slow_rate:.0f} events/s (p50 latency {slow_p50:.0f} ms)",
                flush=True,
            )
    finally:
        worker.stop()
        receiver.shutdown()
    print(
        f"paced: {paced_count} events at {rate:g}/s, latency publication -> receipt "
        f"p50 {statistics.median(latencies):.1f} ms, p90 {statistics.quantiles(latencies, n=10)[-1]:.1f} ms"
    )
    best, best_floor = max(rates), max(floors)
    effective = f", effective target >= {FLOOR_SHARE * best_floor:.0f}" if best_floor < FLOOR_RULE else ""
    print(f"delivery: {best:.0f} events/s (target >= {TARGET}), floor {best_floor:.0f} events/s{effective}")


if __name__ == "__main__":
    main()
