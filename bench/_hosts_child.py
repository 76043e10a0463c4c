"""The measured process of ``bench.hosts``: one session host, or the simulated network alone.

    python -m bench._hosts_child host <setup.json>
    python -m bench._hosts_child network <setup.json>

Started by :mod:`bench.hosts` with the local stack's environment (moto runs in the parent, so
its memory is not in this process). ``setup.json`` names the network's state file, the
session data directory, the devices and the queues.
Progress lines go to stderr; the last line on stdout is one JSON object of results.

* ``host``: gives every device a lease of a dead host (expiring in an hour), loads the
  network, starts a ``SessionHost`` and measures its RSS idle (its first pass finds every
  lease live). Then, twice (the ``warmup`` first devices, then the others): rewrites their
  leases to expire at one moment ``T`` (far enough ahead for the rewrite to end first, so no
  device can be taken before ``T``), waits until they are connected again (restore: from
  ``T``) and measures RSS. Then sends a command to a sample of devices, has a phone message
  another sample, and counts the envelopes on the events queue.
* ``network``: the same network and the same credentials, no host: opens and connects the
  same sessions (the warm-up ones, then the others) through the simulated port with a sink
  that drops events, and measures RSS between. That is the simulated network's and its
  sessions' share of the host's growth.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

DEAD_HOST = "dead-host"
SETTLE_SECONDS = 1.0
"""Quiet time before an RSS reading (garbage collected first), so work in flight is done."""


def proc_status(field: str) -> int:
    """The number of ``field`` in /proc/self/status (``VmRSS`` in KiB, ``Threads``, ...)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def rss_kb() -> int:
    """The process's resident set size (VmRSS), in KiB."""
    return proc_status("VmRSS")


def settled_rss_kb() -> int:
    time.sleep(SETTLE_SECONDS)
    gc.collect()
    return rss_kb()


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def wait_for(condition: Any, seconds: float, what: str, progress: Any = None) -> None:
    """Poll ``condition``; every 10 s, say ``progress()`` if given."""
    began = time.monotonic()
    said = began
    while not condition():
        now = time.monotonic()
        if now - began > seconds:
            raise TimeoutError(f"not within {seconds:.0f} s: {what}")
        if progress is not None and now - said >= 10:
            say(f"  {now - began:.0f} s: {progress()}")
            said = now
        time.sleep(0.05)


def run_host(setup: dict[str, Any]) -> dict[str, Any]:
    from session_host import config

    # Read by the send dispatchers' module at import: set before the host is imported.
    config.SEND_POLL_SECONDS = setup["send_poll"]
    from gateway.bus import CommandBus, contracts, queues
    from gateway.bus.client import Target
    from session_host.config import HostSettings
    from session_host.host import SessionHost
    from session_host.host_thread import HostThread
    from session_host.network.simulated import SimulatedNetwork, SimulatedPort

    devices = setup["devices"]
    events = EventCount(queues.sqs_client(), setup["events_queue"])
    write_seconds = write_dead_leases(devices, time.time() + 3600)
    network = SimulatedNetwork(Path(setup["state_path"]))
    settings = HostSettings(
        data_dir=setup["data_dir"],
        takeover_interval_seconds=setup["takeover_interval"],
        lease_ttl_seconds=setup["lease_ttl"],
        **({"restore_concurrency": setup["concurrency"]} if setup["concurrency"] else {}),
    )
    host = SessionHost(
        port=SimulatedPort(network),
        settings=settings,
        command_queue_url=setup["command_queue"],
        events_queue_url=setup["events_queue"],
    )
    thread = HostThread(host).start()
    wait_for(lambda: host.restore_passes() >= 1, 120, "a first restore pass")
    rss_idle = settled_rss_kb()
    if host.owned_devices():
        raise RuntimeError("the host took devices while the dead host's leases were live")
    say(f"idle host: RSS {rss_idle} KiB")

    def take_over(batch: list[dict[str, Any]], total: int) -> float:
        """Expire ``batch``'s leases at one moment; seconds from then until the host runs
        ``total`` devices and every one of ``batch`` is connected to the network (owned alone
        is not enough: a device is owned from its lease on, before its session connects)."""
        expired = float(math.ceil(time.time() + 2 * write_seconds * len(batch) / len(devices) + 1))
        write_dead_leases(batch, expired)
        wait_for(lambda: time.time() > expired, 120, "the dead host's leases to expire")

        def done() -> bool:
            return len(host.owned_devices()) == total and all(
                network.connection_count(d["device_id"]) == 1 for d in batch
            )

        def progress() -> str:
            connected = sum(network.connection_count(d["device_id"]) for d in batch)
            return f"{len(host.owned_devices())} owned, {connected} of {len(batch)} connected"

        wait_for(done, 300, f"{len(batch)} devices connected", progress)
        return time.time() - expired

    warmup, measured = devices[: setup["warmup"]], devices[setup["warmup"] :]
    if warmup:
        take_over(warmup, len(warmup))
    rss_warm = settled_rss_kb()
    say(f"host with {len(warmup)} warm-up sessions: RSS {rss_warm} KiB")
    if setup["trace"]:
        tracemalloc.start()
    restore_seconds = take_over(measured, len(devices))
    say(f"restored {len(measured)} devices {restore_seconds:.1f} s after the leases expired")
    rss_full = settled_rss_kb()
    say(f"host with {len(devices)} sessions: RSS {rss_full} KiB")
    traced_kb = tracemalloc.get_traced_memory()[0] // 1024 if setup["trace"] else 0
    tracing_kb = tracemalloc.get_tracemalloc_memory() // 1024 if setup["trace"] else 0

    sample = devices[: setup["commands"]]
    bus = CommandBus(queues.sqs_client(), setup["command_queue"])
    targets = [Target(d["tenant_id"], d["device_id"], host.queue_url) for d in sample]
    began = time.perf_counter()
    replies = bus.request_all(contracts.GET_STATUS_PRIVACY, targets, timeout=60)
    command_seconds = time.perf_counter() - began
    answered = sum(1 for reply in replies if reply is not None and reply.ok)
    say(f"{answered}/{len(sample)} commands answered in {command_seconds:.1f} s")

    for device in devices[: setup["messages"]]:
        network.send_from_account(setup["sender_phone"], device["phone"], "hello from the bench")
    wanted = {"device.connected": len(devices), "message.received": setup["messages"]}
    try:
        wait_for(lambda: events.has(wanted), 120, "the events on the events queue", events.counts)
    except TimeoutError as error:
        say(str(error))
    thread.kill()  # the bench ends here: nothing to hand back
    return {
        "connected_devices": len(events.devices["device.connected"]),
        "messages_received": len(events.devices["message.received"]),
        "rss_idle_kb": rss_idle,
        "rss_warm_kb": rss_warm,
        "traced_kb": traced_kb,
        "tracing_kb": tracing_kb,
        "rss_full_kb": rss_full,
        "restore_seconds": restore_seconds,
        "commands_sent": len(sample),
        "commands_ok": answered,
        "command_seconds": command_seconds,
        "messages_sent": setup["messages"],
    }


def write_dead_leases(devices: list[dict[str, Any]], expires_at: float) -> float:
    """Every device's lease, held by a host that died, until ``expires_at``; returns the seconds
    the writes took."""
    from gateway.models import LeaseModel

    began = time.perf_counter()
    with LeaseModel.batch_write() as batch:
        for device in devices:
            batch.save(
                LeaseModel(
                    device["device_id"],
                    tenant_id=device["tenant_id"],
                    owner_host_id=DEAD_HOST,
                    owner_queue_url=f"http://{DEAD_HOST}/queue",
                    epoch=1,
                    acquired_at=int(time.time()),
                    expires_at=int(expires_at),
                )
            )
    return time.perf_counter() - began


class EventCount:
    """Distinct devices per event name among the envelopes on the events queue, read (and
    deleted) on a thread of its own from before the host starts, as the delivery function
    consumes the queue: moto's ReceiveMessage slows down with every message left in a queue."""

    def __init__(self, sqs: Any, queue_url: str) -> None:
        self._sqs = sqs
        self._queue_url = queue_url
        self._lock = threading.Lock()
        self.devices: dict[str, set[str]] = {"device.connected": set(), "message.received": set()}
        threading.Thread(target=self._read, name="event-count", daemon=True).start()

    def _read(self) -> None:
        while True:
            messages = self._sqs.receive_message(
                QueueUrl=self._queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1
            ).get("Messages", [])
            with self._lock:
                for message in messages:
                    envelope = json.loads(message["Body"])
                    self.devices.setdefault(envelope["event"], set()).add(envelope["device_id"])
            if messages:
                handles = [m["ReceiptHandle"] for m in messages]
                entries = [{"Id": str(n), "ReceiptHandle": h} for n, h in enumerate(handles)]
                self._sqs.delete_message_batch(QueueUrl=self._queue_url, Entries=entries)

    def has(self, wanted: dict[str, int]) -> bool:
        """Whether each event name has come from its count of devices."""
        with self._lock:
            return all(len(self.devices.get(name, ())) >= count for name, count in wanted.items())

    def counts(self) -> str:
        with self._lock:
            return ", ".join(f"{name} {len(ids)}" for name, ids in sorted(self.devices.items()))


def run_network(setup: dict[str, Any]) -> dict[str, Any]:
    from session_host.network.port import NetworkEvent, SessionState
    from session_host.network.simulated import SimulatedNetwork, SimulatedPort

    network = SimulatedNetwork(Path(setup["state_path"]))
    port = SimulatedPort(network)

    async def drop(_event: NetworkEvent) -> None:
        return None

    async def connect_all(devices: list[dict[str, Any]]) -> list[Any]:
        sessions = [
            port.open_session(d["device_id"], data_dir=Path(setup["data_dir"]), sink=drop) for d in devices
        ]
        for session in sessions:
            await session.connect()
        while not all(session.state is SessionState.CONNECTED for session in sessions):
            await asyncio.sleep(0.05)
        await asyncio.sleep(SETTLE_SECONDS)
        gc.collect()
        return sessions

    loop = asyncio.new_event_loop()
    warmup = loop.run_until_complete(connect_all(setup["devices"][: setup["warmup"]]))
    rss_before = rss_kb()
    if setup["trace"]:
        tracemalloc.start()
    measured = loop.run_until_complete(connect_all(setup["devices"][setup["warmup"] :]))
    rss_after = rss_kb()
    traced_kb = tracemalloc.get_traced_memory()[0] // 1024 if setup["trace"] else 0
    tracing_kb = tracemalloc.get_tracemalloc_memory() // 1024 if setup["trace"] else 0
    say(
        f"network alone: RSS {rss_before} -> {rss_after} KiB "
        f"from {len(warmup)} to {len(warmup) + len(measured)} sessions"
    )
    return {
        "rss_before_kb": rss_before,
        "rss_after_kb": rss_after,
        "traced_kb": traced_kb,
        "tracing_kb": tracing_kb,
    }


def main() -> None:
    mode, setup_path = sys.argv[1], sys.argv[2]
    setup = json.loads(Path(setup_path).read_text())
    result = run_host(setup) if mode == "host" else run_network(setup)
    print(json.dumps(result), flush=True)
    os._exit(0)  # as a crash: sessions and the host's threads are not wound down one by one


if __name__ == "__main__":
    main()
