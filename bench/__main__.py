"""Every benchmark, one after another, then the headline lines (issues 12 and 21) last.

    .venv/bin/python -m bench            # or: make bench
    .venv/bin/python -m bench --only delivery hosts
    .venv/bin/python -m bench --only neonize_sessions --short   # a quick check of one

Each benchmark runs in a fresh interpreter of its own (so one's moto server, threads and
caches never weigh on the next) and prints its whole report as it goes. A headline benchmark
ends with one line that states its figure and its target; those lines are repeated at the end,
in a fixed order, so the last lines of ``make bench`` are the ones to read. ``--short`` runs the
benchmarks that have a short mode (``SHORT``) in it, for a quick check of the bench itself,
not for figures. A benchmark
that exits non-zero (it failed, or it checks a target of its own that this run missed, as
bench.send does) is named before them and makes the run exit 1, after the others have run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

# (module, headline prefix or None): the order in which they run.
BENCHMARKS: tuple[tuple[str, str | None], ...] = (
    ("bench.bus", None),
    ("bench.send", None),
    ("bench.media", None),
    ("bench.tenants", None),
    ("bench.coldstart", "coldstart:"),
    ("bench.delivery", "delivery:"),
    ("bench.hosts", "hosts:"),
    ("bench.cost", None),
    ("bench.neonize_sessions", "sessions:"),
)
HEADLINES = ("coldstart:", "delivery:", "hosts:", "sessions:")
SHORT: dict[str, tuple[str, ...]] = {"bench.neonize_sessions": ("--short",)}
"""The arguments of a benchmark's short mode, for ``--short``."""


def run(module: str, arguments: tuple[str, ...] = ()) -> tuple[int, list[str]]:
    """Run one benchmark, echoing its output; its exit status and the lines it printed."""
    lines: list[str] = []
    with subprocess.Popen(  # noqa: S603 - our own interpreter and benchmark modules, no shell
        [sys.executable, "-u", "-m", module, *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            lines.append(line.rstrip("\n"))
    return process.returncode, lines


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    names = [module.removeprefix("bench.") for module, _ in BENCHMARKS]
    parser.add_argument("--only", nargs="+", choices=names, help="run only these benchmarks")
    parser.add_argument("--short", action="store_true", help="short modes where a benchmark has one")
    options = parser.parse_args()

    headlines: dict[str, str] = {}
    failed: list[str] = []
    for module, prefix in BENCHMARKS:
        if options.only and module.removeprefix("bench.") not in options.only:
            continue
        print(f"\n===== {module} =====", flush=True)
        started = time.monotonic()
        status, lines = run(module, SHORT.get(module, ()) if options.short else ())
        print(f"===== {module}: exit {status} in {time.monotonic() - started:.0f} s =====", flush=True)
        if status != 0:
            failed.append(module)
        if prefix is not None:
            found = [line for line in lines if line.startswith(prefix)]
            headlines[prefix] = found[-1] if found else f"{prefix} no figure ({module} exit {status})"

    print()
    if failed:
        print("exited non-zero (an error or a missed target of its own): " + ", ".join(failed))
    for prefix in HEADLINES:
        if prefix in headlines:
            print(headlines[prefix])
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
