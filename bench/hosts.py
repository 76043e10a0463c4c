"""1,000 devices on one session host: restore time, commands and events, memory per device.

    .venv/bin/python -m bench.hosts [--devices 1000] [--off 1000] [--commands 200] [--messages 100]

One moto server in this process (the template's tables and queues) stands for AWS. The bench
writes what a host restart finds after a crash: ``--devices`` device records wanted connected
and logged in (in the ``restorable`` index), ``--off`` records of devices that are off (not in
it), the devices' credentials under a session data directory, the simulated network's state
(one account and one linked device per record). Then, each in a process of its own (moto's
memory stays here):

* **network alone**: the same sessions opened and connected through the simulated port with no
  host: the RSS the simulated network and its sessions add (the floor of the memory figure).
* **host**: every device gets a lease of a dead host; a ``SessionHost`` first finds every
  lease live (idle RSS), then takes every device over once the leases expire (restore time,
  from expiry to the last device connected), RSS with every session, a command
  (``get_status_privacy``) to ``--commands`` devices through the bus, and a message from a
  phone to ``--messages`` devices; it counts the ``device.connected`` and
  ``message.received`` envelopes on its events queue.

Figures: the host's own overhead per device, ``(host RSS full - idle) - (network RSS after -
before)``, over the devices; the restore time against a floor measured in the same run (the
two writes a takeover cannot avoid per device, a lease put and a record update, with the same
concurrency); and the restore pass's read: the index Query reads the wanted devices only,
where the Scan it replaces read every record. The last line is the headline.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench._stack import new_host_queues, write_dead_host_records
from local_stack.aws import create_resources, start_moto
from local_stack.stack import LocalStack
from local_stack.template import REPO_ROOT, load_template, local_resources

PREFIX = "benchhosts"
TENANTS = 10
SENDER_PHONE = "14440000000"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.hosts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=1000, help="devices to restore (1000)")
    parser.add_argument("--warmup", type=int, default=100, help="devices restored first, apart (100)")
    parser.add_argument("--off", type=int, default=1000, help="devices that are off, not restored (1000)")
    parser.add_argument("--commands", type=int, default=200, help="devices sent a command (200)")
    parser.add_argument("--messages", type=int, default=100, help="devices a phone messages (100)")
    parser.add_argument("--concurrency", type=int, default=0, help="RESTORE_CONCURRENCY (host default)")
    parser.add_argument("--takeover-interval", type=float, default=1.0, help="seconds between passes (1)")
    parser.add_argument("--floor-sample", type=int, default=200, help="devices the floor is timed on (200)")
    parser.add_argument(
        "--no-trace", dest="trace", action="store_false", help="no live heap figure (tracemalloc) either"
    )
    parser.add_argument("--lease-ttl", type=float, default=120.0, help="LEASE_TTL_SECONDS (120, see docs)")
    parser.add_argument("--send-poll", type=float, default=300.0, help="outbox poll, seconds (300, see docs)")
    args = parser.parse_args(argv)

    stack = LocalStack(prefix=PREFIX)
    environment = stack.environment() | {"POWERTOOLS_LOG_LEVEL": "WARNING"}
    os.environ.update(environment)  # before any gateway module is imported
    server, endpoint = start_moto(stack.moto_port)
    try:
        create_resources(endpoint, local_resources(load_template()), PREFIX)
        run(args)
    finally:
        server.stop()


def run(args: argparse.Namespace) -> None:
    from session_host.config import HostSettings

    concurrency = args.concurrency or HostSettings(data_dir="/").restore_concurrency
    with tempfile.TemporaryDirectory() as tmp:
        devices = [_device(n) for n in range(args.warmup + args.devices)]
        setup_path = Path(tmp) / "setup.json"
        began = time.perf_counter()
        data_dir, state_path = _write_network(Path(tmp), devices)
        _write_records(devices, args.off)
        print(f"setup: {len(devices)} + {args.off} records, credentials, network ({_since(began)})")
        index_read = _index_read(devices, args.off)
        floor_seconds = _restore_floor(devices[args.warmup :], concurrency, args.floor_sample)

        setup = {
            "devices": devices,
            "state_path": str(state_path),
            "data_dir": str(data_dir),
            **new_host_queues(PREFIX),
            "takeover_interval": args.takeover_interval,
            "lease_ttl": args.lease_ttl,
            "send_poll": args.send_poll,
            "concurrency": args.concurrency,
            "commands": min(args.commands, len(devices)),
            "messages": min(args.messages, len(devices)),
            "sender_phone": SENDER_PHONE,
            "warmup": args.warmup,
            "trace": args.trace,
        }
        setup_path.write_text(json.dumps(setup))
        network = _child("network", setup_path)
        host = _child("host", setup_path)
    report(args, concurrency, index_read, floor_seconds, network, host)


def _device(n: int) -> dict[str, Any]:
    from session_host.network.simulated.model import new_device_key

    phone = f"1555{n:07d}"
    return {
        "tenant_id": f"bench-tenant-{n % TENANTS}",
        "device_id": str(uuid.uuid4()),
        "phone": phone,
        "jid": f"{phone}@s.whatsapp.net",
        "device_key": new_device_key(),
    }


def _write_network(tmp: Path, devices: list[dict[str, Any]]) -> tuple[Path, Path]:
    """Credentials per device and the network's state file, as paired devices leave them."""
    from session_host.network.simulated.model import Account, Link
    from session_host.network.simulated.persistence import credentials_path, write_json
    from session_host.network.simulated.world import World

    data_dir, state_path = tmp / "sessions", tmp / "network.json"
    world = World()
    world.accounts[SENDER_PHONE] = Account(SENDER_PHONE, "bench sender")
    for device in devices:
        world.accounts[device["phone"]] = Account(device["phone"])
        world.links[device["device_key"]] = Link(device["device_key"], device["jid"], device["device_id"])
        credentials = {
            "jid": device["jid"],
            "device_key": device["device_key"],
            "device_id": device["device_id"],
        }
        write_json(credentials_path(data_dir, device["device_id"]), credentials, durable=False)
    write_json(state_path, world.to_json(), durable=False)
    return data_dir, state_path


def _write_records(devices: list[dict[str, Any]], off: int) -> None:
    """The devices' records as a crashed host left them, and ``off`` devices that are off."""
    from gateway.models import DeviceModel
    from gateway.timestamps import iso_utc

    write_dead_host_records(devices)
    now = iso_utc()
    with DeviceModel.batch_write() as batch:
        for n in range(off):
            batch.save(
                DeviceModel(
                    f"bench-tenant-{n % TENANTS}",
                    f"off-{n}",
                    owner_user_id="bench-user",
                    name="off",
                    status="logged_out",
                    created_at=now,
                    updated_at=now,
                )
            )


def _index_read(devices: list[dict[str, Any]], off: int) -> dict[str, Any]:
    """One restore pass's read: the index Query finds exactly the wanted devices."""
    from session_host import records

    began = time.perf_counter()
    found = records.restorable()
    seconds = time.perf_counter() - began
    wanted = {(d["tenant_id"], d["device_id"]) for d in devices}
    if {(r.tenant_id, r.device_id) for r in found} != wanted or len(found) != len(wanted):
        raise SystemExit(f"the restorable index found {len(found)} devices, not the {len(wanted)} wanted")
    return {"found": len(found), "table": len(devices) + off, "seconds": seconds}


def _restore_floor(devices: list[dict[str, Any]], concurrency: int, sample: int) -> float:
    """Seconds for the writes a takeover cannot avoid (a lease put, a record update per device),
    ``concurrency`` at once, timed on ``sample`` devices and scaled to all of them (the writes
    are independent, so the time is linear in their number)."""
    from gateway.models import DeviceModel, LeaseModel
    from gateway.timestamps import iso_utc

    def writes(device: dict[str, Any]) -> None:
        now = time.time()
        LeaseModel(
            f"floor-{device['device_id']}",
            tenant_id=device["tenant_id"],
            owner_host_id="floor",
            epoch=1,
            acquired_at=int(now),
            expires_at=int(now),
        ).save()
        DeviceModel(device["tenant_id"], device["device_id"]).update(
            actions=[DeviceModel.updated_at.set(iso_utc())], condition=DeviceModel.device_id.exists()
        )

    timed = devices[: max(1, min(sample, len(devices)))]
    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(writes, timed))
    return (time.perf_counter() - began) * len(devices) / len(timed)


def _child(mode: str, setup_path: Path) -> dict[str, Any]:
    """Run ``bench._hosts_child`` and return its results (its last stdout line)."""
    began = time.perf_counter()
    completed = subprocess.run(  # noqa: S603 (our own module, our own interpreter)
        [sys.executable, "-m", "bench._hosts_child", mode, str(setup_path)],
        cwd=REPO_ROOT,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        text=True,
        check=False,
        timeout=600,
    )
    if completed.returncode != 0:
        raise SystemExit(f"the {mode} process failed (exit {completed.returncode})")
    print(f"{mode} process done ({_since(began)})")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _since(began: float) -> str:
    return f"{time.perf_counter() - began:.1f} s"


def report(
    args: argparse.Namespace,
    concurrency: int,
    index_read: dict[str, Any],
    floor_seconds: float,
    network: dict[str, Any],
    host: dict[str, Any],
) -> None:
    n = args.devices
    # tracemalloc's own bookkeeping is resident memory too, and no part of either process's work
    host_growth = host["rss_full_kb"] - host["rss_warm_kb"] - host["tracing_kb"]
    network_growth = network["rss_after_kb"] - network["rss_before_kb"] - network["tracing_kb"]
    own_per_device = (host_growth - network_growth) / n
    restore = host["restore_seconds"]
    print()
    print(
        f"restore pass read: {index_read['found']} index keys of {index_read['table']} records "
        f"({index_read['seconds'] * 1000:.0f} ms; the Scan it replaces read all {index_read['table']})"
    )
    print(
        f"restore: {restore:.1f} s from lease expiry to {n} connected "
        f"(RESTORE_CONCURRENCY {concurrency}, passes every {args.takeover_interval:g} s); "
        f"floor (lease put + record update per device, {concurrency} at once, timed on "
        f"{min(args.floor_sample, n)}) {floor_seconds:.1f} s, "
        f"ratio {restore / floor_seconds:.2f}x"
    )
    print(
        f"commands: {host['commands_ok']}/{host['commands_sent']} get_status_privacy answered "
        f"in {host['command_seconds']:.1f} s (all sent at once)"
    )
    print(
        f"events: device.connected from {host['connected_devices']}/{n + args.warmup} devices, "
        f"message.received {host['messages_received']}/{host['messages_sent']}"
    )
    print(
        f"memory: host RSS idle {host['rss_idle_kb']}, with {args.warmup} warm-up devices "
        f"{host['rss_warm_kb']}, with {args.warmup + n} {host['rss_full_kb']} KiB "
        f"(+{host_growth} for {n}, tracemalloc's own {host['tracing_kb']} taken off); "
        f"network alone +{network_growth} KiB for {n}; per device: "
        f"{host_growth / n:.1f} KB = network {network_growth / n:.1f} KB + host's own {own_per_device:.1f} KB"
    )
    print(
        f"        (idle -> warm-up: +{host['rss_warm_kb'] - host['rss_idle_kb']} KiB "
        f"for {args.warmup} devices: "
        "the AWS clients, threads and buffers of a host at work, paid once)"
    )
    if args.trace:
        live = (host["traced_kb"] - network["traced_kb"]) / n
        print(
            f"live heap (tracemalloc, from the warm-up on): host {host['traced_kb']} KiB, network alone "
            f"{network['traced_kb']} KiB for {n}: host's own {live:.1f} KB/device"
        )
    failed = (
        host["commands_ok"] != host["commands_sent"]
        or host["connected_devices"] != n + args.warmup
        or host["messages_received"] != host["messages_sent"]
    )
    if failed:
        print("FAILED: not every command was answered or not every event arrived")
    print(f"hosts: {n} devices, {own_per_device:.0f} KB/device, restore {restore:.1f} s")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
