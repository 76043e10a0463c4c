"""Faults a test plants in host processes it starts (this folder is put first on their
``PYTHONPATH``, so Python imports this module at every interpreter's start).

- ``TEST_NON_DAEMON_THREAD_SECONDS``: in a host process (``SESSION_WORKERS=1``: a worker,
  or a host without supervisor), a non-daemon thread sleeps that long, as neonize's dialing
  thread does: an interpreter that exits normally waits for it.
- ``TEST_LEAK_FLAG``: a path; once that file names this process's ``SESSION_HOST_ID``, the
  process opens ``TEST_LEAK_COUNT`` descriptors it never closes, as neonize leaks them.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path


def _leak_when_named(flag: Path, count: int) -> None:
    while True:
        try:
            if flag.read_text().strip() == os.environ.get("SESSION_HOST_ID"):
                break
        except OSError:
            pass
        time.sleep(0.1)
    for _ in range(count):
        os.open(os.devnull, os.O_RDONLY)


if (seconds := os.environ.get("TEST_NON_DAEMON_THREAD_SECONDS")) and os.environ.get("SESSION_WORKERS") == "1":
    threading.Thread(target=time.sleep, args=(float(seconds),), name="dial", daemon=False).start()

if flag := os.environ.get("TEST_LEAK_FLAG"):
    threading.Thread(
        target=_leak_when_named,
        args=(Path(flag), int(os.environ.get("TEST_LEAK_COUNT", "0"))),
        name="leak",
        daemon=True,
    ).start()
