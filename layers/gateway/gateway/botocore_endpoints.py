"""botocore's endpoint data, cut down to the services the gateway uses.

A botocore session parses ``endpoints.json`` (1.2 MB, every partition's endpoints of ~440
services) for its first client: 9 ms of every function's cold start. The gateway only makes
clients of ``gateway.aws.SERVICES``, so ``botocore_endpoints.json`` keeps each partition
whole (regions, defaults, variants) with only those services: 28 KB, parsed in 0.5 ms, and
botocore resolves the same endpoints from it (``tests/unit/test_botocore_endpoints.py``).

The file is written for one botocore version and says which; with another version installed
:func:`trimmed` answers ``None`` and botocore reads its own file. After a botocore upgrade,
``make endpoints`` writes it again (a unit test fails until then).

    python -m gateway.botocore_endpoints     # write botocore_endpoints.json
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import botocore

TRIMMED_FILE = Path(__file__).with_name("botocore_endpoints.json")
BOTOCORE_FILE = Path(botocore.__file__).with_name("data") / "endpoints.json"


def trim(endpoints: dict[str, Any], services: Iterable[str]) -> dict[str, Any]:
    """``endpoints`` with every partition's services cut down to ``services``."""
    wanted = frozenset(services)
    partitions = [
        {
            **partition,
            "services": {name: kept for name, kept in partition["services"].items() if name in wanted},
        }
        for partition in endpoints["partitions"]
    ]
    return {**endpoints, "partitions": partitions}


def generate(services: Iterable[str]) -> dict[str, Any]:
    """The contents of :data:`TRIMMED_FILE` for the installed botocore."""
    endpoints = json.loads(BOTOCORE_FILE.read_bytes())
    return {"botocore": botocore.__version__, "endpoints": trim(endpoints, services)}


def trimmed() -> dict[str, Any] | None:
    """The trimmed endpoint data, if written for the installed botocore."""
    try:
        data = json.loads(TRIMMED_FILE.read_bytes())
    except FileNotFoundError:
        return None
    return data["endpoints"] if data["botocore"] == botocore.__version__ else None


if __name__ == "__main__":
    from gateway.aws import SERVICES

    TRIMMED_FILE.write_text(json.dumps(generate(SERVICES), indent=1) + "\n")
