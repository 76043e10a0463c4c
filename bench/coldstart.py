"""Cold start of every API function, and the AWS calls of every platform and users route.

    .venv/bin/python -m bench.coldstart [--runs N]

One moto server holds the template's tables and queues (no API server is started). A tenant
is registered through the platform handler in this process, then:

1. AWS calls per route: in this process, every botocore API call is counted while each
   platform and users route is handled once by its real Lambda handler; the table lists the
   DynamoDB calls by operation and table, and checks that a user-token request costs exactly
   one DynamoDB read to authenticate (a consistent GetItem on the tokens table).
2. Cold starts: for each API function, N fresh interpreters import the handler module and
   answer one authenticated request; N more only import the shared libraries. The runs are
   interleaved (shuffled per round) so drifts of the machine hit every column alike.

See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._route_calls import AwsCallCounter, Setup, count_route_calls, load_event
from bench._stack import moto_stack

REPO_ROOT = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).with_name("_probe.py")
MARKER = "@@bench-result@@ "
PREFIX = "bench"
BARE = "bare"
TARGET_RATIO = 1.3  # issue 12: a function's cold start against the bare imports
BARE_IMPORTS = ("fastapi", "mangum", "boto3", "pynamodb", "aws_lambda_powertools")  # as in _probe.py


# --- cold starts -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    key: str
    module: str
    request: str
    event: dict[str, Any]
    expected: int
    note: str = ""


def api_event(route_key: str, path: str, user_token: str, **headers: str) -> dict[str, Any]:
    """An authenticated GET of ``path`` (a route without a sample event of its own)."""
    event = load_event("devices-list", user_token=user_token)
    event["routeKey"], event["rawPath"] = route_key, path
    event["requestContext"]["routeKey"] = route_key
    event["requestContext"]["http"]["path"] = path
    event["headers"].update(headers)
    return event


def targets(setup: Setup) -> list[Target]:
    """One realistic first request per function: authenticated, cheap, answered without a host."""
    user_token = setup.admin_token
    media_id = f"{setup.device_id}.{uuid.uuid4().hex}"  # a media of the device that was never stored
    return [
        Target(
            "platform",
            "platform_api.handler",
            "GET /tenants, master token",
            load_event("tenants-list", master_token=setup.master_token),
            200,
        ),
        Target(
            "users",
            "users_api.handler",
            "GET /status, user token",
            load_event("status", user_token=user_token),
            200,
        ),
        Target(
            "devices",
            "devices_api.handler",
            "GET /devices, user token",
            load_event("devices-list", user_token=user_token),
            200,
        ),
        Target(
            "webhooks",
            "webhooks_api.handler",
            "GET /webhook/events, user token",
            load_event("webhook-events", user_token=user_token),
            200,
        ),
        Target(
            "messages",
            "messages_api.handler",
            "GET /media/{media_id}, user token",
            api_event("GET /media/{media_id}", f"/media/{media_id}", user_token),
            404,
            "device read + S3 HeadObject of a media never stored: 404",
        ),
        Target(
            "groups",
            "groups_api.handler",
            "GET /groups, user token",
            api_event("GET /groups", "/groups", user_token, **{"x-device-id": setup.device_id}),
            503,
            "device read, never connected: 503 before the device is asked",
        ),
    ]


@dataclass
class Sample:
    wall_ms: float  # subprocess launch -> result line read
    in_process_ms: float  # first line of the probe -> answer (or -> imports done, for bare)
    import_ms: float  # first line of the probe -> handler module (or bare libraries) imported
    cpu_ms: float  # CPU time of the interpreter (user + system) from its start to the answer


def run_probe(args: list[str], env: dict[str, str], expected: int | None) -> tuple[Sample, dict[str, Any]]:
    started = time.perf_counter()
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and probe script, no shell
        [sys.executable, str(PROBE), *args],
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    result = None
    for line in process.stdout:
        if line.startswith(MARKER):
            wall_ms = (time.perf_counter() - started) * 1000
            result = json.loads(line[len(MARKER) :])
            break
    _, stderr = process.communicate(timeout=60)
    if result is None or process.returncode != 0:
        raise RuntimeError(f"probe {args[0]} failed ({process.returncode}):\n{stderr}")
    if expected is not None and result["status"] != expected:
        raise RuntimeError(f"probe {args[0]}: status {result['status']} != {expected}: {result['body']}")
    return Sample(wall_ms, result["total_ms"], result["import_ms"], result["cpu_ms"]), result


def measure_cold_starts(setup: Setup, runs: int) -> float:
    """Print the cold-start table; returns the worst ratio of a function to the bare imports."""
    # Bytecode caching on, whatever this shell says: the warm-up round writes the repository's
    # __pycache__ as pip wrote the libraries', so no column compiles source in its measured runs.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    plan = targets(setup)
    jobs: dict[str, tuple[list[str], int | None]] = {BARE: ([BARE], None)}
    jobs.update({t.key: ([t.module, json.dumps(t.event)], t.expected) for t in plan})
    samples: dict[str, list[Sample]] = {key: [] for key in jobs}

    # One discarded round first: bytecode caches and the page cache are warm for every column.
    for args, expected in jobs.values():
        run_probe(args, env, expected)
    order = list(jobs)
    for _ in range(runs):
        random.shuffle(order)
        for key in order:
            args, expected = jobs[key]
            samples[key].append(run_probe(args, env, expected)[0])
    # One more, untimed, run per function: the botocore clients its import and first request create.
    clients = {t.key: run_probe([*jobs[t.key][0], "--clients"], env, t.expected)[1] for t in plan}

    def median(key: str, attribute: str) -> float:
        return statistics.median(getattr(sample, attribute) for sample in samples[key])

    bare_wall = median(BARE, "wall_ms")
    bare_import = median(BARE, "in_process_ms")
    bare_cpu = median(BARE, "cpu_ms")
    print(
        f"\nCold starts: median of {runs} fresh interpreters each (+1 discarded warm-up), interleaved; "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, DynamoDB = moto on loopback"
    )
    print(f"  bare imports ({', '.join(BARE_IMPORTS)}):")
    print(
        f"    launch -> imported {bare_wall:.0f} ms; in-process import {bare_import:.0f} ms; "
        f"CPU {bare_cpu:.0f} ms"
    )
    header = (
        f"  {'function':<9} {'request':<32} {'launch->answer':>14} {'import->answer':>14} "
        f"{'(import)':>8} {'ratio':>6} {'CPU':>8} {'CPU ratio':>9}  {'clients: import':>15} "
        f"{'request':>11}  note"
    )
    print(header)
    ratios, cpu_ratios = [], []
    for target in plan:
        wall = median(target.key, "wall_ms")
        in_process = median(target.key, "in_process_ms")
        imported = median(target.key, "import_ms")
        cpu = median(target.key, "cpu_ms")
        made = clients[target.key]
        at_import = f"{made['import_clients']} ({made['import_client_ms']:.0f} ms)"
        in_request = f"{made['request_clients']} ({made['request_client_ms']:.0f} ms)"
        ratios.append(wall / bare_wall)
        cpu_ratios.append(cpu / bare_cpu)
        print(
            f"  {target.key:<9} {target.request:<32} {wall:>11.0f} ms {in_process:>11.0f} ms "
            f"{imported:>5.0f} ms {wall / bare_wall:>5.2f}x {cpu:>5.0f} ms {cpu / bare_cpu:>8.2f}x  "
            f"{at_import:>15} {in_request:>11}  {target.note}"
        )
    print(
        "  launch->answer: subprocess launch to the answer line (interpreter start included);\n"
        "  import->answer: inside the interpreter, first line to the handler's answer; (import): of which\n"
        "  importing the handler module; ratio: launch->answer / bare-imports launch->imported;\n"
        "  CPU: user + system time of the interpreter from its start to the answer, and its ratio to the\n"
        "  bare imports' (less sensitive than wall time to other processes on the machine);\n"
        "  clients: botocore clients created while importing the handler module and while answering the\n"
        "  first request, and the time that took (one extra, untimed run per function)."
    )
    print(f"  worst CPU ratio {max(cpu_ratios):.2f}x")
    return max(ratios)


# --- main ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.coldstart", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters per column (default 5)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    began = time.perf_counter()
    with moto_stack(PREFIX) as (stack, names):
        table_ids = {physical: logical for logical, physical in names.items() if logical.endswith("Table")}
        counter = AwsCallCounter(table_ids)
        with counter.installed():
            setup = count_route_calls(counter, stack.master_token)
        worst = measure_cold_starts(setup, args.runs)
    print(f"\ntotal bench time {time.perf_counter() - began:.1f} s")
    print(f"coldstart: worst ratio {worst:.2f}x (target <= {TARGET_RATIO}x)")


if __name__ == "__main__":
    main()
