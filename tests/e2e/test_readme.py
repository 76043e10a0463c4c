"""The README's walk-through, run as a newcomer would run it, against the local stack.

The bash block under "Using it" is executed unchanged except for three addresses a test run
cannot share with ``make run``: the base URL, the master token file and the receiver's port.
Every curl call must succeed (``--fail-with-body``), so a step that answers an error, or an
example in an order that cannot work, fails here.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from local_stack.receiver import make_server

README = Path(__file__).resolve().parents[2] / "README.md"
BASE_LINE = "BASE=http://127.0.0.1:8000"
MASTER_LINE = "MASTER=$(cat .local/master_token)"
RECEIVER_URL = "http://127.0.0.1:9000/hooks"
# Every curl of the walk-through fails the script on an HTTP error, as a careful reader would notice.
PRELUDE = 'set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 30 "$@"; }\n'


def walkthrough() -> str:
    """The first bash block of the README's "Using it" section."""
    text = README.read_text()
    section = text[text.index("## Using it") :]
    match = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert match, "the README has no bash block under 'Using it'"
    return match.group(1)


@pytest.fixture
def receiver() -> Iterator[tuple[str, io.StringIO]]:
    """``make receiver``'s server on a free port, with what it printed."""
    out = io.StringIO()
    server = make_server(0, "local-webhook-s3cret", out)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/hooks", out
    server.shutdown()
    server.server_close()


@pytest.mark.e2e
def test_readme_walkthrough_runs_in_order(stack, receiver) -> None:
    # Given the README's walk-through, pointed at this stack and a running receiver
    assert shutil.which("curl"), "the README asks for curl"
    assert shutil.which("jq"), "the README asks for jq"
    script = walkthrough()
    for line in (BASE_LINE, MASTER_LINE, RECEIVER_URL):
        assert line in script, f"the walk-through no longer contains {line!r}"
    receiver_url, printed = receiver
    script = (
        script.replace(BASE_LINE, f"BASE={stack.base_url}")
        .replace(MASTER_LINE, f"MASTER={stack.master_token}")
        .replace(RECEIVER_URL, receiver_url)
    )

    # When it runs from top to bottom
    result = subprocess.run(  # noqa: S603 - our own script, run by bash
        ["bash", "-c", PRELUDE + script],  # noqa: S607
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    # Then every step succeeded and the receiver printed the contact's message, signature verified
    assert result.returncode == 0, f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"
    lines = printed.getvalue().splitlines()
    received = [line for line in lines if line.startswith("message.received ")]
    assert received, lines
    assert "[verified]" in received[0]
    assert '"hello"' in received[0]
