"""The supervisor's rules (ids, restarts and their backoff, stuck workers, the stop deadline)
on fake processes and a fake clock; the real processes are in
tests/integration/session_host/test_host_workers.py."""

from __future__ import annotations

import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from session_host import liveness
from session_host.config import (
    LIVENESS_MAX_AGE_SECONDS,
    RECYCLE_EXIT_CODE,
    SUPERVISOR_KILL_SECONDS,
    WORKER_START_GRACE_SECONDS,
    HostSettings,
)
from session_host.workers import RestartBackoff, Supervisor, exit_description


@dataclass
class FakeProcess:
    pid: int
    environment: dict[str, str]
    returncode: int | None = None
    signals: list[int] = field(default_factory=list)
    ignores_sigterm: bool = False

    def poll(self) -> int | None:
        return self.returncode

    def send_signal(self, signum: int) -> None:
        self.signals.append(signum)
        if signum == signal.SIGKILL or not self.ignores_sigterm:
            self.returncode = 0 if signum == signal.SIGTERM else -signum

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        assert self.returncode is not None
        return self.returncode


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Spawner:
    started: list[FakeProcess] = field(default_factory=list)
    refusals: int = 0  # the first calls fail, as fork() does without memory

    def __call__(self, environment: Mapping[str, str]) -> FakeProcess:
        """A worker that is up and keeps its liveness file fresh (for the test's duration)."""
        if self.refusals:
            self.refusals -= 1
            raise OSError(12, "Cannot allocate memory")
        process = FakeProcess(100 + len(self.started), dict(environment))
        liveness.write(Path(environment["SESSION_HOST_LIVENESS_FILE"]), environment["SESSION_HOST_ID"])
        self.started.append(process)
        return process

    def ids(self) -> list[str]:
        return [process.environment["SESSION_HOST_ID"] for process in self.started]


def supervisor(
    tmp_path: Path, workers: int = 2, spawner: Spawner | None = None
) -> tuple[Supervisor, Spawner, Clock]:
    settings = HostSettings(
        host_id="abcd1234", session_workers=workers, liveness_file=tmp_path / "host.alive", data_dir=tmp_path
    )
    spawner, clock = spawner or Spawner(), Clock()
    made = Supervisor(settings, spawn=spawner, clock=clock, sleep=clock.sleep, environment={"KEPT": "yes"})
    return made, spawner, clock


def test_each_worker_is_a_host_of_its_own_id_queue_and_liveness_file(tmp_path: Path) -> None:
    # Given a supervisor of two workers / When it starts them
    sup, spawner, _ = supervisor(tmp_path)
    sup.tick()

    # Then each is a single host process with an id of the task's, its own liveness file,
    # and the supervisor's environment besides
    assert spawner.ids() == ["abcd1234-w0-0", "abcd1234-w1-0"]
    for index, process in enumerate(spawner.started):
        assert process.environment["SESSION_WORKERS"] == "1"
        assert process.environment["SESSION_WORKER_SHARE"] == f"{index}/{len(spawner.started)}"
        assert process.environment["SESSION_HOST_LIVENESS_FILE"] == str(tmp_path / f"host.alive.w{index}")
        assert process.environment["KEPT"] == "yes"
        HostSettings(host_id=process.environment["SESSION_HOST_ID"])  # a valid host id
    # And the container's liveness file is fresh
    assert liveness.is_fresh(tmp_path / "host.alive", LIVENESS_MAX_AGE_SECONDS)


def test_a_worker_that_dies_is_restarted_at_once_under_a_new_id_then_with_backoff(tmp_path: Path) -> None:
    # Given two running workers that ran long enough to count as stable
    sup, spawner, clock = supervisor(tmp_path)
    sup.tick()
    clock.sleep(120)

    # When worker 0 crashes
    spawner.started[0].returncode = -signal.SIGSEGV
    sup.tick()

    # Then it is started again at once, as a new generation (no wait for its old heartbeat)
    assert spawner.ids()[2:] == ["abcd1234-w0-1"]

    # When it crashes again and again, soon after each start
    restarts_at = []
    for _ in range(4):
        spawner.started[-1].returncode = -signal.SIGABRT
        crashed_at, count = clock.now, len(spawner.started)
        while len(spawner.started) == count:
            clock.sleep(0.1)
            sup.tick()
        restarts_at.append(round(clock.now - crashed_at))

    # Then each restart waits twice as long as the one before, from 1 s
    assert restarts_at == [1, 2, 4, 8]
    assert spawner.ids()[-1] == "abcd1234-w0-5"
    # And the other worker was left alone
    assert spawner.started[1].returncode is None
    assert [process.environment["SESSION_HOST_ID"] for process in spawner.started].count("abcd1234-w1-0") == 1


def test_a_worker_that_cannot_be_started_is_tried_again_with_backoff(tmp_path: Path) -> None:
    # Given a supervisor whose first two attempts to start a process fail (no memory, say)
    sup, spawner, clock = supervisor(tmp_path, workers=1, spawner=Spawner(refusals=2))

    # When it keeps looking / Then it does not fail, and starts the worker once it can
    for _ in range(50):
        sup.tick()
        clock.sleep(0.1)
    assert spawner.ids() == ["abcd1234-w0-2"]


def test_the_backoff_is_capped_and_resets_after_a_stable_run() -> None:
    # Given a worker's backoff
    backoff = RestartBackoff(first=1, most=60, stable_after=60)

    # When it keeps ending within seconds / Then: at once, then 1, 2, 4 ... 60 s at most
    delays = [backoff.next_delay(ran_for=2) for _ in range(10)]
    assert delays == [0, 1, 2, 4, 8, 16, 32, 60, 60, 60]

    # When it then ran for a minute / Then the next restart is at once again
    assert backoff.next_delay(ran_for=60) == 0
    assert backoff.next_delay(ran_for=1) == 1


def test_a_worker_that_asks_to_be_replaced_is_replaced_at_once(tmp_path: Path) -> None:
    # Given a worker running for a while
    sup, spawner, clock = supervisor(tmp_path, workers=2)
    sup.tick()
    clock.sleep(300)

    # When it exits to be recycled (over its descriptor budget)
    spawner.started[1].returncode = RECYCLE_EXIT_CODE
    sup.tick()

    # Then a fresh one of the next generation takes its place at once
    assert spawner.ids()[2:] == ["abcd1234-w1-1"]


def test_a_worker_whose_liveness_goes_stale_after_its_start_grace_is_killed(tmp_path: Path) -> None:
    # Given a worker that wrote its liveness file once, long ago
    sup, spawner, clock = supervisor(tmp_path, workers=1)
    sup.tick()
    worker_file = tmp_path / "host.alive.w0"
    liveness.write(worker_file, "abcd1234-w0-0", now=0.0)

    # When it is still within its start grace / Then it is left to start
    clock.sleep(WORKER_START_GRACE_SECONDS / 2)
    sup.tick()
    assert spawner.started[0].signals == []

    # When the grace is over and the file is still stale
    clock.sleep(WORKER_START_GRACE_SECONDS)
    sup.tick()

    # Then it is killed, and on the next look started again
    assert spawner.started[0].signals == [signal.SIGKILL]
    sup.tick()
    assert spawner.ids() == ["abcd1234-w0-0", "abcd1234-w0-1"]


def test_a_fresh_worker_is_not_killed(tmp_path: Path) -> None:
    # Given a worker past its start grace that keeps its liveness file fresh
    sup, spawner, clock = supervisor(tmp_path, workers=1)
    sup.tick()
    clock.sleep(WORKER_START_GRACE_SECONDS + 10)
    liveness.write(tmp_path / "host.alive.w0", "abcd1234-w0-0")

    # When the supervisor looks / Then it lets it run
    sup.tick()
    assert spawner.started[0].signals == []


def test_the_task_is_healthy_while_at_least_one_worker_is(tmp_path: Path) -> None:
    # Given two workers serving
    sup, _, clock = supervisor(tmp_path)
    sup.tick()
    container_file = tmp_path / "host.alive"
    assert liveness.is_fresh(container_file, LIVENESS_MAX_AGE_SECONDS)

    # When one of them stops writing its liveness file / Then the task is still healthy
    liveness.write(tmp_path / "host.alive.w0", "abcd1234-w0-0", now=0.0)
    container_file.unlink()
    clock.sleep(10)
    sup.tick()
    assert liveness.is_fresh(container_file, LIVENESS_MAX_AGE_SECONDS)

    # When neither writes it any more (every worker failing) / Then the task is not
    liveness.write(tmp_path / "host.alive.w1", "abcd1234-w1-0", now=0.0)
    container_file.unlink()
    clock.sleep(10)
    sup.tick()
    assert not container_file.exists()


def test_stop_forwards_sigterm_and_kills_what_still_runs_at_the_deadline(tmp_path: Path) -> None:
    # Given two workers, one of which does not react to SIGTERM
    sup, spawner, clock = supervisor(tmp_path)
    sup.tick()
    spawner.started[1].ignores_sigterm = True

    # When SIGTERM arrives and the supervisor stops
    sup.request_stop()
    asked_at = clock.now
    code = sup.stop()

    # Then both got SIGTERM; the one still running at the deadline got SIGKILL then
    assert spawner.started[0].signals == [signal.SIGTERM]
    assert spawner.started[1].signals == [signal.SIGTERM, signal.SIGKILL]
    assert SUPERVISOR_KILL_SECONDS <= clock.now - asked_at < SUPERVISOR_KILL_SECONDS + 1
    # And the supervisor exits 0, its liveness file gone, and starts nothing more
    assert code == 0
    assert not (tmp_path / "host.alive").exists()
    assert len(spawner.started) == 2


def test_stop_is_quick_when_every_worker_stops(tmp_path: Path) -> None:
    # Given workers that all stop on SIGTERM
    sup, spawner, clock = supervisor(tmp_path, workers=3)
    sup.tick()

    # When the supervisor stops / Then it returns at once
    began = clock.now
    assert sup.stop() == 0
    assert clock.now - began < 1
    assert all(process.signals == [signal.SIGTERM] for process in spawner.started)


@pytest.mark.parametrize(
    ("code", "said"),
    [(0, "exit 0"), (75, "exit 75"), (-signal.SIGSEGV, "SIGSEGV"), (-signal.SIGABRT, "SIGABRT")],
)
def test_exits_are_described_as_an_operator_reads_them(code: int, said: str) -> None:
    assert exit_description(code) == said
