"""``make run`` on a port it cannot use says so in one line, before starting anything."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from local_stack.__main__ import api_port
from local_stack.aws import free_port
from local_stack.server import PortUnavailable, ensure_port_free


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another process would hold: bound and listening on loopback."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_a_busy_port_is_refused_with_what_to_do(busy_port: int) -> None:
    with pytest.raises(PortUnavailable) as refused:
        ensure_port_free(busy_port)
    message = str(refused.value)
    assert message.startswith(f"port {busy_port} is in use: stop the other process or set GATEWAY_PORT")
    assert "\n" not in message


def test_a_free_port_and_any_port_are_accepted() -> None:
    port = free_port()
    ensure_port_free(port)
    assert api_port(str(port)) == port
    assert api_port("0") == 0


@pytest.mark.parametrize(("value", "said"), [("abc", "is not a port number"), ("70000", "is not a TCP port")])
def test_a_gateway_port_that_is_no_port_is_refused(value: str, said: str) -> None:
    with pytest.raises(PortUnavailable, match=said):
        api_port(value)


def test_make_run_on_a_busy_port_explains_itself_in_one_line(busy_port: int) -> None:
    # When the local runner starts on a port another process holds
    result = subprocess.run(
        [sys.executable, "-m", "local_stack"],
        env={**os.environ, "GATEWAY_PORT": str(busy_port)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    # Then it stops at once with one line saying why and what to do, and no traceback
    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"port {busy_port} is in use: stop the other process or set GATEWAY_PORT"), line
