"""The measured process of ``bench.neonize_sessions``: real neonize sessions on one session host.

    python -m bench._neonize_child prepare <setup.json>
    python -m bench._neonize_child host <setup.json>

Started by :mod:`bench.neonize_sessions` with ``HTTPS_PROXY`` pointing at its played network
(the Go runtime reads the environment the process starts with) and the local stack's
environment (moto runs in the parent, so its memory is not in this process). Progress lines
go to stderr, log records to a file; the last stdout line that starts with ``RESULT`` holds one
JSON object of results (the Go side prints lines of its own to stdout).

* ``prepare``: every device's store as a paired device leaves it, made with the real library
  against a refusing network (:mod:`bench._neonize_stores`).
* ``host``: a ``SessionHost`` with the real ``NeonizePort`` (as ``python -m session_host``
  builds it, with its default executor), every device leased by a dead host; then the leases
  expire at one moment and the host restores every device (each one dials the played
  network), and the process is measured while they dial. Probes run all along, each kind one
  at a time on a thread of its own: a ``PING`` through the bus to the host's queue (the host answers
  it without touching any session), and an adapter call for another device (``send_text``
  on a session of this process's port that never connected: answered ``not_connected``).
  A watchdog ends the process (exit 3) if its RSS passes the limit, or its descriptors 90 %
  of their limit.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path
from typing import Any

from bench._hosts_child import proc_status, rss_kb, say, wait_for, write_dead_leases

SETTLE_SECONDS = 1.0
PROBE_TIMEOUT = 10.0
WATCHDOG_EVERY = 0.25
KINDS = ("ping", "adapter")
OTHER_DEVICE = "bench-other-device"
"""The device of the probes: no record, never connected."""


def threads_now() -> int:
    """The process's OS threads (the Go runtime's included)."""
    return proc_status("Threads")


def fds_now() -> int:
    return len(os.listdir("/proc/self/fd"))


def reading(sessions: int = 0) -> dict[str, int]:
    """RSS (KiB), OS threads and open descriptors of this process, from /proc/self, and the
    number of sessions opened by then."""
    return {"rss_kb": rss_kb(), "threads": threads_now(), "fds": fds_now(), "sessions": sessions}


def settled_reading() -> dict[str, int]:
    time.sleep(SETTLE_SECONDS)
    gc.collect()
    return reading()


def start_watchdog(limit_kb: int) -> None:
    """End the process at once (exit 3, a RESULT line saying why) if its RSS passes
    ``limit_kb``, or its open descriptors 90 % of its soft limit (a leak per retry would
    otherwise end in failures nobody asked to measure)."""
    fd_limit = int(0.9 * resource.getrlimit(resource.RLIMIT_NOFILE)[0])

    def watch() -> None:
        while True:
            rss, fds = rss_kb(), fds_now()
            message = None
            if rss > limit_kb:
                message = f"watchdog: RSS {rss // 1024} MiB passed the limit of {limit_kb // 1024} MiB"
            elif fds > fd_limit:
                message = f"watchdog: {fds} open descriptors passed 90 % of the limit ({fd_limit})"
            if message is not None:
                say(message)
                print("RESULT " + json.dumps({"watchdog": message}), flush=True)
                os._exit(3)
            time.sleep(WATCHDOG_EVERY)

    threading.Thread(target=watch, name="watchdog", daemon=True).start()


async def _drop(_event: Any) -> None:
    return None


# --- prepare ----------------------------------------------------------------------------


def run_prepare(setup: dict[str, Any]) -> dict[str, Any]:
    """Every device's paired store (see :mod:`bench._neonize_stores`)."""
    from bench._neonize_stores import store_template, write_paired_store
    from session_host.network.neonize import NeonizePort

    seed_dir = Path(setup["seed_dir"])
    seed_dir.mkdir(parents=True, exist_ok=True)
    port = NeonizePort()
    quiet_logging(seed_dir / "prepare.log")
    template = store_template(port, seed_dir)
    began = time.perf_counter()
    for data_dir, devices in setup["stores"]:
        for device in devices:
            write_paired_store(Path(data_dir), device, template)
    count = sum(len(devices) for _, devices in setup["stores"])
    say(f"prepare: {count} paired device stores written in {time.perf_counter() - began:.1f} s")
    return {"stores": count, "template_bytes": len(template)}


# --- host -------------------------------------------------------------------------------


class TrackingPort:
    """The real port, keeping the sessions it opens so their states can be counted (only the
    port's public API: ``open_session``, ``discard`` and ``name``)."""

    def __init__(self, port: Any) -> None:
        self._port = port
        self.name = port.name
        self._lock = threading.Lock()
        self._sessions: dict[str, Any] = {}

    def open_session(self, device_id: str, *, data_dir: Path, sink: Any) -> Any:
        session = self._port.open_session(device_id, data_dir=data_dir, sink=sink)
        with self._lock:
            self._sessions[device_id] = session
        return session

    def discard(self, device_id: str, *, data_dir: Path) -> None:
        self._port.discard(device_id, data_dir=data_dir)

    def sessions(self) -> dict[str, Any]:
        """The sessions opened so far (a copy: the host's thread opens more meanwhile)."""
        with self._lock:
            return dict(self._sessions)


class Probes:
    """PINGs through the bus and adapter calls for another device, each kind one at a time on
    a thread of its own, until stopped; each sample is (phase, kind, seconds, outcome)."""

    def __init__(self, bus: Any, host_queue: str, other: Any, interval: float) -> None:
        self._bus = bus
        self._host_queue = host_queue
        self._other = other
        self._interval = interval
        self._loop = asyncio.new_event_loop()
        self.phase = "idle"
        self.samples: list[tuple[str, str, float, str]] = []
        self._stopped = threading.Event()
        self._threads: list[threading.Thread] = []

    def ping(self) -> tuple[float, str]:
        from gateway.bus import contracts

        began = time.perf_counter()
        try:
            reply = self._bus.request(
                contracts.PING,
                tenant_id="bench-other-tenant",
                device_id=OTHER_DEVICE,
                host_queue_url=self._host_queue,
                timeout=PROBE_TIMEOUT,
            )
            outcome = "ok" if reply.ok else f"failed: {reply.error_kind}"
        except Exception as error:  # a timeout is a sample too
            outcome = type(error).__name__
        return time.perf_counter() - began, outcome

    def adapter_call(self) -> tuple[float, str]:
        from session_host.network.port import NetworkError

        began = time.perf_counter()
        try:
            coroutine = self._other.sending.send_text("15550009999@s.whatsapp.net", "probe")
            self._loop.run_until_complete(asyncio.wait_for(coroutine, PROBE_TIMEOUT))
            outcome = "sent?"
        except NetworkError as error:
            outcome = error.kind.value
        except Exception as error:
            outcome = type(error).__name__
        return time.perf_counter() - began, outcome

    def _sample(self, kind: str) -> None:
        phase = self.phase
        seconds, outcome = self.ping() if kind == "ping" else self.adapter_call()
        self.samples.append((phase, kind, seconds, outcome))

    def one_round(self) -> None:
        for kind in KINDS:
            self._sample(kind)

    def start(self) -> None:
        """One thread per kind, so a call stuck up to its deadline delays no sample of the other."""

        def run(kind: str) -> None:
            while not self._stopped.is_set():
                self._sample(kind)
                self._stopped.wait(self._interval)

        self._threads = [
            threading.Thread(target=run, args=(kind,), name=f"probe-{kind}", daemon=True) for kind in KINDS
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stopped.set()
        for thread in self._threads:
            thread.join(timeout=PROBE_TIMEOUT + 5)


class EventTally:
    """Envelopes on the events queue per event name (all, and distinct devices), read and
    deleted on a thread of its own as the delivery function consumes the queue."""

    def __init__(self, sqs: Any, queue_url: str) -> None:
        self._sqs = sqs
        self._queue_url = queue_url
        self._lock = threading.Lock()
        self.total: collections.Counter[str] = collections.Counter()
        self.devices: dict[str, set[str]] = collections.defaultdict(set)
        threading.Thread(target=self._read, name="event-tally", daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                messages = self._sqs.receive_message(
                    QueueUrl=self._queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1
                ).get("Messages", [])
            except Exception as error:
                say(f"event tally: {error}")
                time.sleep(1)
                continue
            with self._lock:
                for message in messages:
                    envelope = json.loads(message["Body"])
                    self.total[envelope["event"]] += 1
                    self.devices[envelope["event"]].add(envelope["device_id"])
            if messages:
                entries = [
                    {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(messages)
                ]
                self._sqs.delete_message_batch(QueueUrl=self._queue_url, Entries=entries)

    def snapshot(self) -> dict[str, list[int]]:
        with self._lock:
            return {name: [count, len(self.devices[name])] for name, count in sorted(self.total.items())}


def run_host(setup: dict[str, Any]) -> dict[str, Any]:
    from concurrent.futures import ThreadPoolExecutor

    from session_host import config

    config.SEND_POLL_SECONDS = setup["send_poll"]  # read at import by the send dispatchers
    from gateway.bus import CommandBus, queues
    from session_host.config import DEFAULT_EXECUTOR_THREADS, HostSettings
    from session_host.host import SessionHost
    from session_host.host_thread import HostThread
    from session_host.runtime import build_port

    imported = reading()  # the interpreter, boto3, the gateway's and the host's modules
    port = TrackingPort(build_port("neonize"))
    loaded = reading()  # and neonize: its Go runtime, its log thread
    devices = setup["devices"]
    n = len(devices)
    events = EventTally(queues.sqs_client(), setup["events_queue"])
    write_seconds = write_dead_leases(devices, time.time() + 3600)

    def measure() -> dict[str, int]:
        return reading(sum(1 for device_id in port.sessions() if device_id != OTHER_DEVICE))

    quiet_logging(Path(setup["log_path"]))
    settings = HostSettings(
        data_dir=setup["data_dir"],
        takeover_interval_seconds=setup["takeover_interval"],
        lease_ttl_seconds=setup["lease_ttl"],
        liveness_file=Path(setup["data_dir"]).parent / "host.alive",
    )
    host = SessionHost(
        port=port,
        settings=settings,
        command_queue_url=setup["command_queue"],
        events_queue_url=setup["events_queue"],
    )
    thread = HostThread(host)
    # As python -m session_host runs it (session_host.runtime.serve).
    thread.loop.set_default_executor(
        ThreadPoolExecutor(DEFAULT_EXECUTOR_THREADS, thread_name_prefix="adapter")
    )
    thread.start()
    wait_for(lambda: host.restore_passes() >= 1, 120, "a first restore pass")
    if host.owned_devices():
        raise RuntimeError("the host took devices while the dead host's leases were live")
    other = port.open_session(OTHER_DEVICE, data_dir=Path(setup["other_dir"]), sink=_drop)
    bus = CommandBus(queues.sqs_client(), setup["command_queue"])
    probes = Probes(bus, host.queue_url, other, setup["probe_interval"])
    for _ in range(3):  # the bus's reply queue, the first calls' clients
        probes.ping()
        probes.adapter_call()
    base = settled_reading()
    say(f"idle host: RSS {base['rss_kb']} KiB, {base['threads']} threads, {base['fds']} fds")
    for _ in range(setup["idle_probes"]):
        probes.one_round()
    probes.start()

    # Restore: every lease expires at one moment; every device is then taken and dials.
    probes.phase = "restore"
    expired = float(int(time.time() + 2 * write_seconds + 2))
    write_dead_leases(devices, expired)
    wait_for(lambda: time.time() > expired, 120, "the dead host's leases to expire")
    restored_at: float | None = None
    limit = expired + setup["restore_limit"]
    all_owned_pass: int | None = None
    peak = measure()
    while time.time() < limit:
        owned = len(host.owned_devices())
        passes = host.restore_passes()
        if owned == n and all_owned_pass is None:
            all_owned_pass = passes  # the pass under way took the last one
        if all_owned_pass is not None and passes > all_owned_pass:
            restored_at = time.time()  # that pass ended: every taken device's connect() returned
            break
        peak = _peak(peak, measure)
        time.sleep(0.05)
    restore_seconds = (restored_at or time.time()) - expired
    owned_after_restore = len(host.owned_devices())
    say(
        f"restore: {owned_after_restore}/{n} devices owned, "
        + (
            f"every connect returned {restore_seconds:.1f} s after the leases expired"
            if restored_at
            else f"not done within {setup['restore_limit']:.0f} s"
        )
    )

    # The window: the sessions dial (and, on a refusing network, fail and are retried).
    probes.phase = "window"
    at_restore = measure()
    window_start = time.time()
    while time.time() < window_start + setup["window"]:
        peak = _peak(peak, measure)
        time.sleep(1.0)
    window_end = time.time()
    probes.stop()
    end = measure()
    peak = _peak(peak, measure)
    states = collections.Counter(
        session.state.value for device_id, session in port.sessions().items() if device_id != OTHER_DEVICE
    )
    say(
        f"after the window: RSS {end['rss_kb']} KiB, {end['threads']} threads, {end['fds']} fds; "
        f"states {dict(states)}"
    )
    result = {
        "sessions": n,
        "imported": imported,
        "loaded": loaded,
        "base": base,
        "at_restore": at_restore,
        "end": end,
        "peak": peak,
        "expired_at": expired,
        "restore_seconds": restore_seconds,
        "restored": restored_at is not None,
        "owned_after_restore": owned_after_restore,
        "owned_at_end": len(host.owned_devices()),
        "window_start": window_start,
        "window_end": window_end,
        "states": dict(states),
        "events": events.snapshot(),
        "samples": probes.samples,
    }
    thread.kill()  # as a crash: the sessions are not closed (a dialing one would hold a stop ~60 s)
    return result


def _peak(peak: dict[str, int], measure: Any) -> dict[str, int]:
    now = measure()
    return {key: max(peak[key], now[key]) for key in peak}


def quiet_logging(path: Path) -> None:
    """Python log records to a file (one line per failed dial would flood the report);
    neonize configures the root logger when it is imported, so this is done again after."""
    import logging

    logging.basicConfig(filename=path, level=logging.WARNING, force=True)


def main() -> None:
    mode, setup_path = sys.argv[1], sys.argv[2]
    setup = json.loads(Path(setup_path).read_text())
    start_watchdog(setup["rss_limit_mb"] * 1024)
    quiet_logging(Path(setup_path).with_suffix(".log"))
    result = run_prepare(setup) if mode == "prepare" else run_host(setup)
    print("RESULT " + json.dumps(result), flush=True)
    os._exit(0)  # neonize's connect threads are not daemons: a dialing one would hold the exit


if __name__ == "__main__":
    main()
