"""`make run` on the real network library, as a user starts it, behind a network that never
answers (a proxy that accepts connections and stays silent): devices fail and retry honestly
over HTTP and by webhooks, other devices are answered promptly, and the whole stack stops
within 20 s of SIGTERM while sessions still dial.

The process is ``python -m local_stack`` (what ``make run`` runs) with ``NETWORK_ADAPTER=neonize``;
whatsmeow dials through ``HTTPS_PROXY`` (``notes/neonize.md``), here a silent played network
(``local_stack.played_network``): it accepts and never speaks. Only the supervision timings
are shortened (``DIAL_TIMEOUT_SECONDS``).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from device_flows import create_device, subscribe
from waiting import PROMPTLY
from webhook_receiver import Receiver

from local_stack.aws import free_port
from local_stack.played_network import PlayedNetwork

pytestmark = pytest.mark.e2e

DIAL_TIMEOUT = 3.0
STARTUP_SECONDS = 120.0
STOP_BUDGET_SECONDS = 20.0


@pytest.fixture
def silent_network() -> Iterator[str]:
    """A proxy address that accepts every connection and never answers one."""
    with PlayedNetwork("silent") as network:
        yield network.url


@pytest.fixture
def neonize_stack(silent_network: str, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Client]]:
    # The stack sets every table, queue and endpoint variable of its own at start, over the
    # in-process test stack's that this environment carries.
    env = dict(os.environ)
    env.update(
        NETWORK_ADAPTER="neonize",
        GATEWAY_PORT=str(free_port()),
        GATEWAY_MASTER_TOKEN="neonize-e2e-master-token-0123456789",
        HTTPS_PROXY=silent_network,
        NO_PROXY="127.0.0.1,localhost",
        DIAL_TIMEOUT_SECONDS=str(DIAL_TIMEOUT),
        RECONNECT_INITIAL_SECONDS="0.3",
        PYTHONUNBUFFERED="1",
    )
    # Its output goes to a file, as a terminal would take it: a pipe nobody reads fills up and
    # blocks the process's next write, which is not what a user's `make run` ever meets.
    output = tmp_path / "make-run.log"
    with output.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "local_stack"],
            cwd=tmp_path,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        yield process, _api_of(process, output)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


class Client:
    """Just enough of a user's HTTP client for this test."""

    def __init__(self, base_url: str, master_token: str) -> None:
        self.base_url, self.master_token = base_url, master_token
        self.http = requests.Session()

    def request(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> requests.Response:
        headers = {**kwargs.pop("headers", {}), **({"Authorization": f"Bearer {token}"} if token else {})}
        return self.http.request(method, self.base_url + path, headers=headers, timeout=30, **kwargs)

    def register(self) -> str:
        body = {
            "tenant_name": "neonize-e2e",
            "email": "admin@neonize-e2e.example.com",
            "password": "secret123",
        }
        response = self.request("POST", "/register", self.master_token, json=body)
        assert response.status_code == 201, response.text
        return response.json()["token"]


def _api_of(process: subprocess.Popen[str], output: Path) -> Client:
    """The base URL and master token the banner prints, as a user reads them."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        printed = output.read_text()
        base_url = re.search(r"base URL:\s+(\S+)", printed)
        token = re.search(r"master token:\s+(\S+)", printed)
        if base_url and token:
            return Client(base_url.group(1), token.group(1))
        assert process.poll() is None, f"make run exited before its banner:\n{printed[-3000:]}"
        assert time.monotonic() < deadline, f"make run printed no banner in time:\n{printed[-3000:]}"
        time.sleep(0.2)


def test_make_run_on_neonize_retries_honestly_and_stops_within_20_s(
    neonize_stack: tuple[subprocess.Popen[str], Any],
) -> None:
    process, api = neonize_stack
    receiver = Receiver().start()
    try:
        token = api.register()
        dialing, other = create_device(api, token), create_device(api, token)
        path = receiver.path()
        subscribe(api, token, dialing, receiver.url(path))

        # When a device connects to a network that never answers
        connect = api.request("POST", f"/devices/{dialing}/connect", token)

        # Then the connect is accepted and the device never claims to be pairing
        assert connect.status_code == 202, connect.text
        assert connect.json()["device"]["status"] == "not_ready"
        # and at each dial deadline a failed attempt is reported and retried
        failures = receiver.wait_for(
            path,
            lambda found: len([r for r in found if r.envelope.get("event") == "connection.failure"]) >= 2,
            timeout=4 * DIAL_TIMEOUT + 10,
            expected="two connection.failure webhooks",
        )
        attempts = sorted(
            r.envelope["data"]["attempt"] for r in failures if r.envelope.get("event") == "connection.failure"
        )
        assert attempts[:2] == [1, 2]
        device = api.request("GET", f"/devices/{dialing}", token).json()["device"]
        assert device["status"] == "not_ready"
        assert device["last_error"]["code"] == "timeout"

        # And another device is answered at once while the first one dials: its own dial
        # starts, and a disconnect of that hanging dial answers without waiting for it
        assert api.request("POST", f"/devices/{other}/connect", token).status_code == 202
        started = time.monotonic()
        disconnect = api.request("POST", f"/devices/{other}/disconnect", token)
        assert disconnect.status_code == 200, disconnect.text
        assert time.monotonic() - started < PROMPTLY
        started = time.monotonic()
        assert api.request("GET", f"/devices/{other}", token).status_code == 200
        assert time.monotonic() - started < PROMPTLY

        # When the stack is told to stop while a session still dials
        stopping = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(STOP_BUDGET_SECONDS + 5)

        # Then it is gone within 20 s
        assert time.monotonic() - stopping < STOP_BUDGET_SECONDS
    finally:
        receiver.stop()
