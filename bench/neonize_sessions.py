"""Real-library sessions: 1,000 neonize 0.5.2 sessions on one session host, dialing a played network.

    .venv/bin/python -m bench.neonize_sessions                        # 1,000 sessions per network
    .venv/bin/python -m bench.neonize_sessions --short                # 20 sessions, 15 s window
    .venv/bin/python -m bench.neonize_sessions --sessions 100 --networks silent

No network is reached: for each played network (:mod:`local_stack.played_network`, a loopback
server that the real library uses as its HTTPS proxy), in this order:

* ``silent``: every dial is accepted and never answered; whatsmeow gives up after ~60 s.
* ``refuse``: every dial is accepted and closed at once; it fails at once, and every retry
  the host (or the adapter) makes is one more dial, counted by the played network.

a fresh process (``bench/_neonize_child.py``, with ``HTTPS_PROXY`` set when it starts and
``NO_PROXY`` for the local AWS endpoints) runs one ``SessionHost`` with the real
``NeonizePort``, built as ``python -m session_host`` builds it, against the local stack (moto in
this process, so its memory is not in the measured one). ``--sessions`` devices are paired
on disk (whatsmeow's own store, made by the library, with a made-up account; see the child)
and their records wanted connected, leased by a dead host. Their leases expire at one moment
and the host restores them all; each one dials the played network. Figures:

* **restore**: from the leases' expiry to the end of the restore pass that took the last
  device (every device's ``connect()`` has returned by then): the time to start them all;
  and when the played network saw the last device's first dial (``connect()`` may return
  before the dial starts);
* **per session**: (RSS, OS threads, open descriptors - the idle host's, neonize loaded) /
  sessions opened, from ``/proc/self``: after the restore, at the end of a ``--window`` of
  dialing, and the peak;
* **PING**: ``CommandBus.request(PING)`` to the host's queue for another device, one at a
  time on a thread of its own, all along (idle first, then during the restore and the
  window): the host's command path (its loop, the bus over moto's SQS), which the target of
  1 s applies to;
* **adapter call**: ``send_text`` on a session of the same port for another device that never
  connected (answered ``not_connected``): how long the library's locks make a call of one
  device wait while the others start and dial;
* **dials**: connections the played network accepted during the window, per second.

A watchdog in the measured process ends it if its RSS passes ``--rss-limit-mb`` (4,096) or
its descriptors 90 % of their limit; the bench then fails.
The last line is the headline: ``sessions: ...``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench._stack import moto_stack, new_host_queues, write_dead_host_records
from local_stack.played_network import PlayedNetwork
from local_stack.template import REPO_ROOT

PREFIX = "benchneonize"
TENANTS = 10
TARGET_P99 = 1.0
NETWORKS = ("silent", "refuse")
"""The played networks measured, in this order."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.neonize_sessions", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--sessions", type=int, default=1000, help="sessions per played network (1000)")
    parser.add_argument(
        "--networks", nargs="+", choices=NETWORKS, default=list(NETWORKS), help="silent refuse"
    )
    parser.add_argument("--window", type=float, default=60.0, help="seconds measured after the restore (60)")
    parser.add_argument(
        "--restore-limit",
        type=float,
        default=600.0,
        help="seconds the restore may take before the window (600)",
    )
    parser.add_argument(
        "--probe-interval", type=float, default=0.2, help="pause between probe rounds (0.2 s)"
    )
    parser.add_argument("--idle-probes", type=int, default=20, help="probe rounds before the restore (20)")
    parser.add_argument(
        "--rss-limit-mb", type=int, default=4096, help="watchdog: RSS limit of the host (4096)"
    )
    parser.add_argument(
        "--takeover-interval", type=float, default=1.0, help="seconds between restore passes (1)"
    )
    parser.add_argument(
        "--lease-ttl", type=float, default=120.0, help="LEASE_TTL_SECONDS (120, as bench.hosts)"
    )
    parser.add_argument(
        "--send-poll", type=float, default=300.0, help="outbox poll, seconds (300, as bench.hosts)"
    )
    parser.add_argument("--short", action="store_true", help="a quick check: 20 sessions, a 15 s window")
    args = parser.parse_args(argv)
    if args.short:
        args.sessions, args.window, args.idle_probes = min(args.sessions, 20), min(args.window, 15.0), 5

    # Children inherit this: the local AWS endpoints never go through a played network.
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    os.environ["POWERTOOLS_LOG_LEVEL"] = "WARNING"
    with moto_stack(PREFIX), tempfile.TemporaryDirectory(prefix="bench-neonize-") as tmp:
        results = run(args, Path(tmp))
    report(args, results)


def run(args: argparse.Namespace, tmp: Path) -> dict[str, dict[str, Any]]:
    plans = {
        mode: {
            "data_dir": str(tmp / mode / "sessions"),
            "devices": [_device(mode, n) for n in range(args.sessions)],
        }
        for mode in args.networks
    }
    began = time.perf_counter()
    prepare = {
        "seed_dir": str(tmp / "seed"),
        "stores": [[plan["data_dir"], plan["devices"]] for plan in plans.values()],
        "rss_limit_mb": args.rss_limit_mb,
    }
    with PlayedNetwork("refuse", lifetime=600) as refusing:
        _child("prepare", prepare, tmp / "prepare.json", refusing.url, timeout=1800)
    print(f"setup: {args.sessions} paired device stores per network ({time.perf_counter() - began:.1f} s)")

    results: dict[str, dict[str, Any]] = {}
    for mode, plan in plans.items():
        setup = {
            **plan,
            "other_dir": str(tmp / mode / "other"),
            **new_host_queues(PREFIX),
            "takeover_interval": args.takeover_interval,
            "lease_ttl": args.lease_ttl,
            "send_poll": args.send_poll,
            "window": args.window,
            "restore_limit": args.restore_limit,
            "probe_interval": args.probe_interval,
            "idle_probes": args.idle_probes,
            "rss_limit_mb": args.rss_limit_mb,
            "log_path": str(tmp / f"{mode}.log"),
        }
        write_dead_host_records(plan["devices"])
        timeout = args.restore_limit + args.window + 600
        network = PlayedNetwork(mode, lifetime=timeout + 60, max_held=4 * args.sessions + 100).start()
        began = time.perf_counter()
        try:
            result = _child("host", setup, tmp / f"{mode}.json", network.url, timeout=timeout)
            result["dials_window"] = network.dials_between(result["window_start"], result["window_end"])
            result["dials_total"] = network.dials
            result["all_dialed"] = network.nth_dial_after(result["expired_at"], args.sessions)
            result["held_peak"], result["overflow"] = network.peak_held, network.overflow
        finally:
            network.stop()
            _delete_records(plan["devices"])
            shutil.rmtree(Path(plan["data_dir"]).parent, ignore_errors=True)
        print(f"{mode}: host process done ({time.perf_counter() - began:.0f} s)")
        results[mode] = result
    return results


def _device(mode: str, n: int) -> dict[str, Any]:
    prefix = {"silent": "1556", "refuse": "1557"}[mode]
    return {
        "tenant_id": f"bench-tenant-{n % TENANTS}",
        "device_id": str(uuid.uuid4()),
        "phone": f"{prefix}{n:07d}",
    }


def _delete_records(devices: list[dict[str, Any]]) -> None:
    """So the next network's host does not restore this one's devices."""
    from gateway.models import DeviceModel

    with DeviceModel.batch_write() as batch:
        for device in devices:
            batch.delete(DeviceModel(device["tenant_id"], device["device_id"]))


def _child(
    mode: str, setup: dict[str, Any], setup_path: Path, proxy: str, *, timeout: float
) -> dict[str, Any]:
    """Run ``bench._neonize_child`` behind the played network ``proxy``; its results."""
    setup_path.write_text(json.dumps(setup))
    environment = os.environ | {"HTTPS_PROXY": proxy, "https_proxy": proxy}
    try:
        completed = subprocess.run(  # noqa: S603 (our own module, our own interpreter)
            [sys.executable, "-m", "bench._neonize_child", mode, str(setup_path)],
            cwd=REPO_ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            text=True,
            check=False,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as error:  # run() has killed it
        raise SystemExit(f"the {mode} process did not end within {timeout:.0f} s") from error
    lines = [line for line in completed.stdout.splitlines() if line.startswith("RESULT ")]
    result = json.loads(lines[-1].removeprefix("RESULT ")) if lines else {}
    if "watchdog" in result:
        raise SystemExit(f"the {mode} process was stopped by its {result['watchdog']}")
    if completed.returncode != 0 or not result:
        tail = "\n".join(completed.stdout.splitlines()[-20:])
        raise SystemExit(f"the {mode} process failed (exit {completed.returncode}); its last output:\n{tail}")
    return result


def _percentiles(values: list[float]) -> tuple[float, float, float]:
    """p50, p99 and the maximum (nearest rank)."""
    if not values:
        return float("nan"), float("nan"), float("nan")
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, max(0, round(0.99 * len(ordered)) - 1))]
    return statistics.median(ordered), p99, ordered[-1]


def _probe_line(result: dict[str, Any], kind: str, phases: tuple[str, ...]) -> tuple[str, float, int]:
    samples = [s for s in result["samples"] if s[1] == kind and s[0] in phases]
    p50, p99, top = _percentiles([s[2] for s in samples])
    counted = collections.Counter(s[3] for s in samples)
    outcomes = [f"{outcome} {count}" for outcome, count in sorted(counted.items())]
    return (
        f"p50 {p50:.3f} s, p99 {p99:.3f} s, max {top:.3f} s ({', '.join(outcomes)})",
        p99,
        len(samples),
    )


def report(args: argparse.Namespace, results: dict[str, dict[str, Any]]) -> None:
    print()
    print(
        f"Real-library sessions: neonize 0.5.2, one session host, {args.sessions} sessions per played network"
    )
    headline: list[str] = []
    failed = False
    for mode, r in results.items():
        n = r["sessions"]
        base, end, peak = r["base"], r["end"], r["peak"]
        # Over the sessions opened by each reading (a restore that did not finish opened fewer).
        per = {
            name: (
                (at["rss_kb"] - base["rss_kb"]) / max(1, at["sessions"]) / 1024,
                (at["threads"] - base["threads"]) / max(1, at["sessions"]),
                (at["fds"] - base["fds"]) / max(1, at["sessions"]),
                at["sessions"],
            )
            for name, at in (("restored", r["at_restore"]), ("window end", end), ("peak", peak))
        }
        rss = per["peak"][0]
        window = r["window_end"] - r["window_start"]
        restore = (
            f"{r['restore_seconds']:.1f} s" if r["restored"] else f"not done in {args.restore_limit:.0f} s"
        )
        print(f"\n[{mode}] {n} sessions")
        if r["restored"]:
            print(
                f"  restore: {n}/{n} devices taken, {restore} from the leases' expiry to the end of "
                "the pass (every connect() returned)"
            )
        else:
            print(
                f"  restore: {r['owned_after_restore']}/{n} devices taken at the "
                f"{args.restore_limit:.0f} s limit; the window began then (the host went on restoring)"
            )
        if r["all_dialed"] is not None:
            print(f"  the {n}th dial reached the network {r['all_dialed']:.1f} s after the leases' expiry")
        else:
            print(f"  fewer than {n} dials reached the network by the end of the window")
        print(
            f"  host idle (neonize loaded): RSS {base['rss_kb'] / 1024:.0f} MB, {base['threads']} threads, "
            f"{base['fds']} fds (before: imports {r['imported']['rss_kb'] / 1024:.0f} MB, "
            f"then neonize {(r['loaded']['rss_kb'] - r['imported']['rss_kb']) / 1024:.0f} MB and "
            f"{r['loaded']['threads'] - r['imported']['threads']} threads)"
        )
        print(
            f"  after a {window:.0f} s window: RSS {end['rss_kb'] / 1024:.0f} MB, {end['threads']} threads, "
            f"{end['fds']} fds; peak RSS {peak['rss_kb'] / 1024:.0f} MB, {peak['threads']} threads, "
            f"{peak['fds']} fds"
        )
        for name, (mb, threads, fds, opened) in per.items():
            print(
                f"  per session, {name + ':':11} {mb:.2f} MB RSS, {threads:.2f} threads, {fds:.2f} fds "
                f"({opened} sessions)"
            )
        print(
            f"  dials: {r['dials_window']} in the window ({r['dials_window'] / window:.1f}/s), "
            f"{r['dials_total']} in all; held at most {r['held_peak']} at once"
            + (f", {r['overflow']} closed over the bound" if r["overflow"] else "")
        )
        print(f"  session states at the end: {r['states']}; owned at the end {r['owned_at_end']}/{n}")
        events = ", ".join(f"{name} {c[0]} ({c[1]} devices)" for name, c in r["events"].items()) or "none"
        print(f"  events published: {events}")
        idle_ping, _, _ = _probe_line(r, "ping", ("idle",))
        busy_ping, ping_p99, ping_n = _probe_line(r, "ping", ("restore", "window"))
        idle_call, _, _ = _probe_line(r, "adapter", ("idle",))
        busy_call, call_p99, _ = _probe_line(r, "adapter", ("restore", "window"))
        print(f"  PING, idle host:           {idle_ping}")
        print(f"  PING, restore and window:  {busy_ping} (target p99 <= {TARGET_P99:g} s)")
        print(f"  adapter call, idle:        {idle_call}")
        print(f"  adapter call, while dialing: {busy_call}")
        bad_pings = [s for s in r["samples"] if s[1] == "ping" and s[3] != "ok"]
        if bad_pings or not ping_n:
            failed = True
            print(f"  FAILED: {len(bad_pings)} PINGs not answered")
        headline.append(
            f"{mode} {rss:.2f} MB/session (peak), restore {restore}, PING p99 {ping_p99:.2f} s, "
            f"adapter call p99 {call_p99:.2f} s"
        )
    print(
        "\n(2 cores shared with other work: times move with the machine's load; compare figures of one run)"
    )
    print(
        f"sessions: {args.sessions} per network; "
        + "; ".join(headline)
        + f" (target PING p99 <= {TARGET_P99:g} s)"
    )
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
