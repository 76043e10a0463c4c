"""The session host as a supervisor of worker processes (``SESSION_WORKERS`` > 1).

A crash of the native network library (neonize's Go runtime aborts the process on
"concurrent map writes"; a call in the wrong state can SIGSEGV) ends the process that made
it. So a task runs ``SESSION_WORKERS`` host processes, and a crash costs one worker's share
of the devices, which come back by themselves (docs/session-host.md, "Isolation and worker
processes").

Each worker is a complete session host (``python -m session_host`` with
``SESSION_WORKERS=1``): its own host id, tenure, heartbeat, command queue and liveness file.
The lease protocol shares the devices between workers exactly as between hosts; the
supervisor holds no device, talks to no AWS service and never imports the network library.

- **Ids.** Worker ``i``'s id is ``<first 8 of SESSION_HOST_ID>-w<i>-<generation>`` (hex), and
  each start of a worker is a new generation: a restarted worker never waits for its
  predecessor's heartbeat (a host id that is reused does), and a recycled one never asks
  SQS for the name of the queue its predecessor just deleted (refused for 60 s). A crashed
  worker's devices are therefore back within one lease TTL (its heartbeat expires) plus one
  takeover interval (a live worker's or host's restore pass takes them).
- **Restarts.** A worker that exits while the supervisor runs is started again: at once
  after a stable run (``WORKER_STABLE_SECONDS``), else after a backoff of 1 s doubling up to
  60 s. A worker that asked to be replaced (``RECYCLE_EXIT_CODE``: over its descriptor budget)
  is restarted the same way; it has handed its devices back first. A worker whose liveness
  file goes stale after its start grace is stuck (its loop no longer runs): it is killed and
  restarted.
- **Stopping.** SIGTERM or SIGINT is forwarded to every worker (each stops cleanly within
  ``WORKER_STOP_SECONDS`` and then ends itself); those still running
  ``SUPERVISOR_KILL_SECONDS`` after the signal are killed, and the supervisor exits 0.
- **Health.** Each worker writes its own liveness file next to the container's
  (``<file>.w<i>``); the supervisor keeps the container's fresh while at least one worker's
  is, so a task whose workers all fail (a broken image, no AWS access) turns unhealthy and is
  replaced, while a task with one worker crash-looping keeps serving with the others.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from gateway.observability import logger
from session_host import liveness
from session_host.config import (
    LIVENESS_EVERY_SECONDS,
    LIVENESS_MAX_AGE_SECONDS,
    RECYCLE_EXIT_CODE,
    SUPERVISOR_KILL_SECONDS,
    WORKER_RESTART_BACKOFF_SECONDS,
    WORKER_STABLE_SECONDS,
    WORKER_START_GRACE_SECONDS,
    HostSettings,
    WorkerShare,
)

TICK_SECONDS = 0.1
"""How often the supervisor looks at its workers."""
GENERATIONS = 0x10000
"""Worker generations wrap around after this many starts of one worker (four hex digits)."""


class Process(Protocol):
    """What the supervisor needs of a worker process (``subprocess.Popen`` has it)."""

    pid: int

    def poll(self) -> int | None: ...

    def send_signal(self, signum: int) -> None: ...

    def kill(self) -> None: ...

    def wait(self, timeout: float | None = None) -> int: ...


Spawn = Callable[[Mapping[str, str]], Process]


def spawn_worker(environment: Mapping[str, str]) -> Process:
    """A worker: the host module in a fresh interpreter, with its output going to ours."""
    return subprocess.Popen([sys.executable, "-m", "session_host"], env=dict(environment))


@dataclass
class RestartBackoff:
    """Delays between restarts of one worker: none after a stable run, then doubling."""

    first: float = WORKER_RESTART_BACKOFF_SECONDS[0]
    most: float = WORKER_RESTART_BACKOFF_SECONDS[1]
    stable_after: float = WORKER_STABLE_SECONDS
    failures: int = 0

    def next_delay(self, ran_for: float) -> float:
        """The wait before the next start of a worker that ran ``ran_for`` seconds and ended."""
        if ran_for >= self.stable_after:
            self.failures = 0
        delay = 0.0 if self.failures == 0 else min(self.first * 2 ** (self.failures - 1), self.most)
        self.failures += 1
        return delay


@dataclass
class Worker:
    """One worker slot: its current process, if any, and when the next one starts."""

    index: int
    liveness_file: Path
    generation: int = -1
    host_id: str = ""
    process: Process | None = None
    started_at: float = 0.0
    restart_at: float | None = 0.0
    backoff: RestartBackoff = field(default_factory=RestartBackoff)


class Supervisor:
    """Runs the workers until SIGTERM or SIGINT (:meth:`run`); ``spawn``, ``clock`` and
    ``sleep`` are injected so the restart rules can be tested without processes."""

    def __init__(
        self,
        settings: HostSettings,
        *,
        spawn: Spawn = spawn_worker,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        self.base_id = settings.host_id[:8]
        self.liveness_file = settings.liveness_file
        self.workers = [
            Worker(index, self.liveness_file.with_name(f"{self.liveness_file.name}.w{index:x}"))
            for index in range(settings.workers)
        ]
        self._spawn = spawn
        self._clock = clock
        self._sleep = sleep
        self._environment = dict(os.environ if environment is None else environment)
        self._stop_requested_at: float | None = None
        self._next_liveness = 0.0

    def worker_id(self, index: int, generation: int) -> str:
        return f"{self.base_id}-w{index:x}-{generation % GENERATIONS:x}"

    # --- running ------------------------------------------------------------------------

    def run(self) -> int:
        """Start the workers, keep them running until a signal, stop them; the exit code."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self.request_stop())
        logger.info("supervisor started", extra={"host_id": self.base_id, "workers": len(self.workers)})
        while not self.stop_requested:
            self.tick()
            self._sleep(TICK_SECONDS)
        return self.stop()

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested_at is not None

    def request_stop(self) -> None:
        if self._stop_requested_at is None:
            self._stop_requested_at = self._clock()

    def tick(self) -> None:
        """One look at every worker: note exits, kill stuck ones, start those that are due."""
        now = self._clock()
        check_liveness = now >= self._next_liveness
        for worker in self.workers:
            if worker.process is not None:
                code = worker.process.poll()
                if code is None:
                    if check_liveness:
                        self._kill_if_stuck(worker, now)
                    continue
                self._exited(worker, code, now)
            if worker.restart_at is not None and now >= worker.restart_at:
                self._start(worker, now)
        if check_liveness:
            self._next_liveness = now + LIVENESS_EVERY_SECONDS
            if any(_is_live(worker) for worker in self.workers):
                liveness.write(self.liveness_file, self.base_id)

    def _start(self, worker: Worker, now: float) -> None:
        worker.generation += 1
        worker.host_id = self.worker_id(worker.index, worker.generation)
        liveness.remove(worker.liveness_file)
        environment = {
            **self._environment,
            "SESSION_HOST_ID": worker.host_id,
            "SESSION_WORKERS": "1",
            "SESSION_WORKER_SHARE": str(WorkerShare(worker.index, len(self.workers))),
            "SESSION_HOST_LIVENESS_FILE": str(worker.liveness_file),
        }
        try:
            worker.process = self._spawn(environment)
        except OSError as error:  # no memory or process slot for now: try again later
            delay = worker.backoff.next_delay(ran_for=0.0)
            worker.restart_at = now + delay
            logger.error(
                "worker not started",
                extra={"worker_host_id": worker.host_id, "error": str(error), "restart_in_seconds": delay},
            )
            return
        worker.started_at, worker.restart_at = now, None
        logger.info(
            "worker started",
            extra={"worker": worker.index, "worker_host_id": worker.host_id, "pid": worker.process.pid},
        )

    def _exited(self, worker: Worker, code: int, now: float) -> None:
        ran_for = now - worker.started_at
        delay = worker.backoff.next_delay(ran_for)
        worker.process, worker.restart_at = None, now + delay
        extra = {
            "worker": worker.index,
            "worker_host_id": worker.host_id,
            "exit": exit_description(code),
            "ran_seconds": round(ran_for, 3),
            "restart_in_seconds": round(delay, 3),
        }
        if code == RECYCLE_EXIT_CODE:
            logger.info("worker asked to be replaced", extra=extra)
        else:
            logger.error("worker ended unexpectedly; its devices come back through the leases", extra=extra)

    def _kill_if_stuck(self, worker: Worker, now: float) -> None:
        if now - worker.started_at < WORKER_START_GRACE_SECONDS:
            return
        if _is_live(worker):
            return
        assert worker.process is not None
        logger.error("worker stuck (liveness file stale): killed", extra={"worker_host_id": worker.host_id})
        worker.process.kill()

    # --- stopping -----------------------------------------------------------------------

    def stop(self) -> int:
        """Forward SIGTERM, give the workers until ``SUPERVISOR_KILL_SECONDS`` after the
        signal, kill those still running, and return the supervisor's exit code (0)."""
        self.request_stop()
        assert self._stop_requested_at is not None
        deadline = self._stop_requested_at + SUPERVISOR_KILL_SECONDS
        running = [worker for worker in self.workers if worker.process is not None]
        for worker in running:
            _signal(worker, signal.SIGTERM)
        while running and self._clock() < deadline:
            running = [worker for worker in running if _still_running(worker)]
            if running:
                self._sleep(TICK_SECONDS)
        for worker in running:
            logger.error("worker alive at the deadline: killed", extra={"worker_host_id": worker.host_id})
            _signal(worker, signal.SIGKILL)
        for worker in running:
            assert worker.process is not None
            try:
                worker.process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:  # ends with the container
                logger.error("killed worker not gone", extra={"worker_host_id": worker.host_id})
        liveness.remove(self.liveness_file)
        took = round(self._clock() - self._stop_requested_at, 3)
        logger.info("supervisor stopped", extra={"host_id": self.base_id, "stop_seconds": took})
        return 0


def _is_live(worker: Worker) -> bool:
    """Whether the worker's loop ran within ``LIVENESS_MAX_AGE_SECONDS`` (its liveness file)."""
    return liveness.is_fresh(worker.liveness_file, LIVENESS_MAX_AGE_SECONDS)


def _still_running(worker: Worker) -> bool:
    assert worker.process is not None
    code = worker.process.poll()
    if code is None:
        return True
    logger.info("worker stopped", extra={"worker_host_id": worker.host_id, "exit": exit_description(code)})
    return False


def _signal(worker: Worker, signum: int) -> None:
    assert worker.process is not None
    with contextlib.suppress(ProcessLookupError):  # already gone
        worker.process.send_signal(signum)


def exit_description(code: int) -> str:
    """``exit 1``, ``SIGSEGV``...: how a worker ended, as the logs say it."""
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"
