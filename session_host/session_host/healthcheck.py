"""Container health check: ``python -m session_host.healthcheck`` exits 0 while the host's
liveness file is fresh, 1 otherwise (missing, unreadable, or older than
``LIVENESS_MAX_AGE_SECONDS``). See :mod:`session_host.liveness` for where the file is."""

from __future__ import annotations

import sys

from session_host import liveness
from session_host.config import LIVENESS_MAX_AGE_SECONDS, HostSettings


def main() -> int:
    return 0 if liveness.is_fresh(HostSettings().liveness_file, LIVENESS_MAX_AGE_SECONDS) else 1


if __name__ == "__main__":
    sys.exit(main())
