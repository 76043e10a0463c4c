"""The host's liveness file: rewritten from the event loop every few seconds while the host
runs, read by ``python -m session_host.healthcheck``.

Written from the loop itself, so a loop that is stuck (or a host that died) leaves the file
to go stale. The default path is container-local (``SESSION_HOST_LIVENESS_FILE``, under the
temp directory): ``SESSION_DATA_DIR`` is shared by every host, so a file there could look
fresh while this host is dead.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path


def write(path: Path, host_id: str, now: float | None = None) -> None:
    """Record that the host is alive now (atomically: the check never reads half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps({"host_id": host_id, "at": time.time() if now is None else now}))
    os.replace(temporary, path)


def is_fresh(path: Path, max_age: float, now: float | None = None) -> bool:
    """Whether the file says the host was alive within the last ``max_age`` seconds."""
    try:
        written = float(json.loads(path.read_text())["at"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return (time.time() if now is None else now) - written <= max_age


async def keep_alive(path: Path, host_id: str, every: float) -> None:
    while True:
        write(path, host_id)
        await asyncio.sleep(every)


def remove(path: Path) -> None:
    path.unlink(missing_ok=True)
