"""The local HTTP server applies the specification's limits (timeouts shortened for the test)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import requests
import uvicorn
from fastapi import APIRouter, Request
from waiting import wait_until

from gateway.web import create_app
from local_stack.aws import free_port
from local_stack.server import MAX_HEADER_BYTES, DeadlinesMiddleware, HeaderTimeoutH11Protocol

router = APIRouter()


@router.post("/echo")
async def echo(request: Request) -> dict[str, int]:
    return {"bytes": len(await request.body())}


@router.get("/slow")
async def slow() -> dict[str, bool]:
    await asyncio.sleep(5)
    return {"done": True}


class QuickHeaderTimeout(HeaderTimeoutH11Protocol):
    header_timeout = 0.5


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = free_port()
    app = DeadlinesMiddleware(create_app(router), read_timeout=0.5, write_timeout=1.0)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        http=QuickHeaderTimeout,
        log_level="error",
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        lifespan="off",
    )
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    wait_until(lambda: instance.started, timeout=15, interval=0.01, what="the server started")
    yield f"127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(5)


def _connect(address: str) -> socket.socket:
    host, port = address.split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def test_connection_without_complete_headers_is_closed_after_the_header_timeout(server: str) -> None:
    # Given a client that sends half a request line and stalls
    with _connect(server) as client:
        client.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()

        # Then the server closes the connection after the header timeout
        assert client.recv(1024) == b""
        assert 0.3 < time.monotonic() - started < 3


def test_body_not_arriving_in_time_is_a_408(server: str) -> None:
    # Given a request that declares 10 bytes of body and sends 2
    with _connect(server) as client:
        client.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")

        # Then the answer is 408 REQUEST_TIMEOUT in the standard envelope
        answer = ""
        while not answer.endswith("}"):
            chunk = client.recv(4096).decode()
            if not chunk:
                break
            answer += chunk
    assert answer.startswith("HTTP/1.1 408")
    assert '"error_code":"REQUEST_TIMEOUT"' in answer


def test_response_not_ready_within_the_write_timeout_is_a_504(server: str) -> None:
    response = requests.get(f"http://{server}/slow", timeout=10)
    assert response.status_code == 504
    assert response.json()["error_code"] == "GATEWAY_TIMEOUT"


def test_headers_over_one_megabyte_are_refused(server: str) -> None:
    # Given headers just over the 1 MB limit
    big = "x" * (MAX_HEADER_BYTES + 1024)

    # When they are sent
    response = requests.post(f"http://{server}/echo", headers={"X-Big": big}, data=b"", timeout=10)

    # Then the request is refused with 431 in the standard envelope
    assert response.status_code == 431
    assert response.json()["error_code"] == "HEADERS_TOO_LARGE"


def test_headers_under_the_limit_are_served(server: str) -> None:
    response = requests.post(
        f"http://{server}/echo", headers={"X-Big": "y" * 500_000}, data=b"abc", timeout=10
    )
    assert response.status_code == 200
    assert response.json() == {"bytes": 3}
