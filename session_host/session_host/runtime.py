"""Running the host as a process: the configured network adapter, signals, clean stop, and
the process's end.

``python -m session_host`` runs one host in this process when ``SESSION_WORKERS`` is 1, and
otherwise the supervisor (:mod:`session_host.workers`), which runs that many of these
processes as workers. Either way a host process:

- stops cleanly on SIGTERM or SIGINT, within ``WORKER_STOP_SECONDS`` of the signal;
- stops cleanly and exits with ``RECYCLE_EXIT_CODE`` when its open descriptors or its memory
  pass their budgets (:mod:`session_host.recycling`), to be replaced by a fresh process;
- ends with ``os._exit`` once its clean stop is over (or its deadline is reached), after
  flushing its output: a native library's non-daemon thread (neonize dials on one, for
  about a minute) or a call still blocked in the loop's executor must not keep it alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NoReturn

from session_host import recycling
from session_host.config import (
    BUDGET_CHECK_SECONDS,
    DEFAULT_EXECUTOR_THREADS,
    RECYCLE_EXIT_CODE,
    WORKER_STOP_SECONDS,
    HostSettings,
)
from session_host.network.port import NetworkPort

FAILURE_EXIT_CODE = 1
"""The exit code of a host process that failed, or whose clean stop overran its budget."""
OVERDUE_NOTICE_SECONDS = 1.0
"""How long the overdue stop waits for its log line to be written."""


def build_port(adapter: str, simulated_state: Path | None = None) -> NetworkPort:
    """The network port named by ``NETWORK_ADAPTER``.

    ``simulated`` gets a fresh in-process network (kept in ``simulated_state`` when given):
    with nobody playing the phones it only runs sessions, which is what a standalone host can
    do with it (the local stack shares one network between its hosts and the simulator's
    control API instead).
    """
    if adapter == "neonize":
        # Imported only here: it loads the Go library (~64 MB).
        from session_host.network.neonize import NeonizePort

        return NeonizePort()
    from session_host.network.simulated import SimulatedNetwork, SimulatedPort

    return SimulatedPort(SimulatedNetwork(simulated_state))


class _Stopping:
    """Why and since when the process is stopping; the first reason wins.

    The first one also arms the process's deadline: a timer thread that ends the process
    ``WORKER_STOP_SECONDS`` later whatever the loop is doing (a stuck loop included).
    """

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.recycling = False

    def request(self, *, recycle: bool = False) -> None:
        if self.event.is_set():
            return
        self.recycling = recycle
        self.event.set()
        arm_deadline(WORKER_STOP_SECONDS)


def arm_deadline(seconds: float) -> None:
    """End the process ``seconds`` from now, with ``FAILURE_EXIT_CODE``, whatever it is doing
    then (a timer thread: it fires even while the event loop is stuck)."""
    deadline = threading.Timer(seconds, _stop_overdue, (seconds,))
    deadline.daemon = True
    deadline.start()


async def serve(settings: HostSettings, port: NetworkPort) -> int:
    """Run a host until SIGTERM or SIGINT, or until it needs replacing, then stop it cleanly;
    returns the process's exit code (0, or ``RECYCLE_EXIT_CODE``)."""
    from gateway.observability import logger
    from session_host.host import SessionHost

    loop = asyncio.get_running_loop()
    # Adapters run their blocking library calls on the default executor, one at a time per
    # session at most: size it above the number of sessions a host runs.
    loop.set_default_executor(ThreadPoolExecutor(DEFAULT_EXECUTOR_THREADS, thread_name_prefix="adapter"))
    stopping = _Stopping()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.request)
    host = SessionHost(port=port, settings=settings)
    await host.start()
    watching = asyncio.create_task(_watch_budgets(settings, stopping))
    try:
        await stopping.event.wait()
    finally:
        watching.cancel()
        started = time.monotonic()
        await host.stop()
        logger.info(
            "host process stopped",
            extra={"host_id": settings.host_id, "stop_seconds": round(time.monotonic() - started, 3)},
        )
    return RECYCLE_EXIT_CODE if stopping.recycling else 0


async def _watch_budgets(settings: HostSettings, stopping: _Stopping) -> None:
    from gateway.observability import logger

    while True:
        await asyncio.sleep(BUDGET_CHECK_SECONDS)
        reason = recycling.recycle_reason(settings.descriptor_budget, settings.memory_budget_mb)
        if reason is not None:
            logger.warning("host process asks to be replaced", extra={"reason": reason})
            stopping.request(recycle=True)
            return


async def _serve_then_exit(settings: HostSettings, port: NetworkPort) -> NoReturn:
    """Serve, then end the process from the loop itself: ``asyncio.run``'s teardown would
    wait for the executor's threads, and the interpreter's for every non-daemon thread."""
    try:
        code = await serve(settings, port)
    except BaseException:  # a failed start, a bug: said, then the process still ends now
        traceback.print_exc()
        code = FAILURE_EXIT_CODE
    end_process(code)


def end_process(code: int) -> NoReturn:
    """Flush what the process wrote, then end it at once (no thread is waited for)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _stop_overdue(seconds: float) -> None:
    # Said on a thread given a second: a write to an output nobody reads blocks for ever, and
    # the deadline must hold even then.
    saying = threading.Thread(target=_say_overdue, args=(seconds,), daemon=True)
    saying.start()
    saying.join(OVERDUE_NOTICE_SECONDS)
    os._exit(FAILURE_EXIT_CODE)


def _say_overdue(seconds: float) -> None:
    with contextlib.suppress(Exception):
        from gateway.observability import logger

        logger.error("clean stop overdue: the process ends now", extra={"after_seconds": seconds})
        for stream in (sys.stdout, sys.stderr):
            stream.flush()


def main() -> None:
    from gateway.observability import configure_logging

    # Before anything logs, and before neonize's import, whose logging.basicConfig then does nothing.
    configure_logging()
    settings = HostSettings()
    if settings.workers > 1:
        from session_host.workers import Supervisor

        sys.exit(Supervisor(settings).run())
    port = build_port(settings.network_adapter, settings.simulated_network_state)
    asyncio.run(_serve_then_exit(settings, port))
