"""One logging output per process (gateway.observability.configure_logging): the Powertools
logger and every stdlib logger (neonize's relay of the Go side, botocore, ...) write one JSON
line per record, in one format, at the configured level, whether neonize's import (which calls
logging.basicConfig) comes before or after the configuration."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

SCRIPT = """
import logging, sys
from gateway.observability import configure_logging, logger
{first}
{second}
logging.getLogger("whatsmeow.Client").info("from the go side")
logging.getLogger("botocore.credentials").warning("from a dependency")
logger.info("from ours")
logging.getLogger("session-host.child").info("from a child of ours")
logging.getLogger("chatty").debug("below the level")
root = logging.getLogger()
print(len(root.handlers), logging.getLevelName(root.level), file=sys.stderr)
"""
CONFIGURE = "configure_logging()"
NEONIZE = "import neonize.utils.log"


@pytest.mark.parametrize(
    ("first", "second"), [(CONFIGURE, NEONIZE), (NEONIZE, CONFIGURE)], ids=["before", "after"]
)
def test_every_logger_writes_one_json_line_per_record_in_one_format(first: str, second: str) -> None:
    # Given a session host process whose level is INFO
    environment = {**os.environ, "POWERTOOLS_SERVICE_NAME": "session-host", "POWERTOOLS_LOG_LEVEL": "INFO"}

    # When it configures logging (before or after importing neonize) and several loggers write
    done = subprocess.run(  # noqa: S603 - this interpreter, our script
        [sys.executable, "-c", SCRIPT.format(first=first, second=second)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    # Then each record is one JSON line, written once, none below the level
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["message"] for line in lines] == [
        "from the go side",
        "from a dependency",
        "from ours",
        "from a child of ours",
    ]
    # And all in the Powertools format: the same keys, the service's name on each
    assert {line["service"] for line in lines} == {"session-host"}
    assert all({"level", "location", "message", "timestamp"} <= line.keys() for line in lines)
    assert [line["level"] for line in lines] == ["INFO", "WARNING", "INFO", "INFO"]
    # And the root logger has our one handler, at the configured level (neonize's call changed nothing)
    assert done.stderr.split() == ["1", "INFO"]
