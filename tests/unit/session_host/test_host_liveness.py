"""The liveness file and the container health check that reads it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from session_host import liveness


def test_a_recent_write_is_fresh_and_an_old_one_is_not(tmp_path: Path) -> None:
    # Given a liveness file written 10 s ago
    path = tmp_path / "host.alive"
    liveness.write(path, "host-a", now=1000.0)

    # When its freshness is judged / Then it depends on the allowed age
    assert liveness.is_fresh(path, max_age=30, now=1010.0)
    assert not liveness.is_fresh(path, max_age=5, now=1010.0)


def test_a_missing_or_garbled_file_is_not_fresh(tmp_path: Path) -> None:
    # Given no file, then a file that is not what the host writes
    path = tmp_path / "host.alive"
    assert not liveness.is_fresh(path, max_age=30)
    path.write_text("not json")

    # When / Then it is not fresh either
    assert not liveness.is_fresh(path, max_age=30)


def healthcheck(path: Path) -> int:
    env = {**os.environ, "SESSION_HOST_LIVENESS_FILE": str(path)}
    return subprocess.run([sys.executable, "-m", "session_host.healthcheck"], env=env, check=False).returncode


def test_the_health_check_exits_0_while_fresh_and_1_otherwise(tmp_path: Path) -> None:
    # Given a host that just wrote its liveness file, and one that stopped writing long ago
    fresh, stale = tmp_path / "fresh.alive", tmp_path / "stale.alive"
    liveness.write(fresh, "host-a")
    liveness.write(stale, "host-b", now=time.time() - 600)

    # When the container health check runs / Then only the fresh one is healthy
    assert healthcheck(fresh) == 0
    assert healthcheck(stale) == 1
    assert healthcheck(tmp_path / "missing.alive") == 1
