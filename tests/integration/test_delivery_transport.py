"""The receiver call against real sockets on loopback: outcomes, timeouts, and the connect-time
address check that keeps deliveries off loopback and private networks outside local mode."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from loopback_receiver import Script, loopback_receiver

from gateway.webhooks.addresses import is_public_address
from gateway.webhooks.delivery.transport import Transport, transport_for

BODY = b'{"id":"e1","event":"message.received"}'
HEADERS = {"Content-Type": "application/json", "X-Webhook-Id": "e1"}


@pytest.fixture
def receiver() -> Iterator[tuple[int, Script]]:
    with loopback_receiver() as running:
        yield running


def test_any_2xx_is_a_success_and_the_request_arrives_as_sent(receiver: tuple[int, Script]) -> None:
    # Given a receiver answering 204
    port, script = receiver
    script.statuses["/in"] = [204]

    # When the event is posted
    result = Transport(None).post(f"http://127.0.0.1:{port}/in", BODY, HEADERS, timeout=5)

    # Then it is a success and the receiver got the body and headers
    assert result.ok
    assert (result.status_code, result.error) == (204, None)
    (received,) = script.of("/in")
    assert received.body == BODY
    assert received.headers["x-webhook-id"] == "e1"
    assert received.headers["content-type"] == "application/json"


@pytest.mark.parametrize("status", [500, 404, 302, 101])
def test_another_status_is_a_failure_and_redirects_are_not_followed(
    receiver: tuple[int, Script], status: int
) -> None:
    port, script = receiver
    script.statuses["/in"] = [status]
    result = Transport(None).post(f"http://127.0.0.1:{port}/in", BODY, HEADERS, timeout=5)
    assert not result.ok
    assert result.status_code == status
    assert result.error == f"receiver answered HTTP {status}"
    assert [r.path for r in script.received] == ["/in"]  # no request to the redirect's target


def test_a_receiver_slower_than_the_timeout_is_a_failure(receiver: tuple[int, Script]) -> None:
    port, script = receiver
    script.delays["/slow"] = 2.0
    result = Transport(None).post(f"http://127.0.0.1:{port}/slow", BODY, HEADERS, timeout=1)
    assert not result.ok
    assert result.error == "timed out after 1 s"
    assert 950 <= result.duration_ms < 1900


@pytest.fixture
def trickler() -> Iterator[int]:
    """A receiver that answers 200 but sends its body one byte every 0.3 s (never a 1 s gap)."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
                for _ in range(100):
                    if stop.wait(0.3):
                        return
                    try:
                        connection.sendall(b"x")
                    except OSError:
                        break

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    server.close()
    thread.join(timeout=5)


def test_the_timeout_bounds_the_whole_attempt_not_each_read(trickler: int) -> None:
    # Given a receiver that keeps every read within the timeout but never finishes its answer
    began = time.monotonic()

    # When an attempt with a 1 s timeout is made
    result = Transport(None).post(f"http://127.0.0.1:{trickler}/in", BODY, HEADERS, timeout=1)

    # Then it is cut at 1 s and counts as timed out
    assert time.monotonic() - began < 1.6
    assert not result.ok
    assert result.error == "timed out after 1 s"


def test_a_refused_connection_is_a_failure() -> None:
    # Given a port nothing listens on
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    # Then the attempt fails with the reason, without a status
    result = Transport(None).post(f"http://127.0.0.1:{port}/in", BODY, HEADERS, timeout=2)
    assert result.status_code is None
    assert result.error is not None
    assert result.error.startswith("connection failed:")
    assert "refused" in result.error.lower()


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "localhost"],
    ids=["ipv4-loopback", "ipv6-loopback", "ipv4-mapped-ipv6", "name-resolving-to-loopback"],
)
def test_outside_local_mode_a_non_public_peer_is_refused_before_sending(
    receiver: tuple[int, Script], host: str
) -> None:
    # Given the transport of a deployment (only public addresses)
    port, script = receiver

    # When it is asked to deliver to a loopback receiver, in any spelling
    result = transport_for(local_mode=False).post(f"http://{host}:{port}/in", BODY, HEADERS, timeout=5)

    # Then the connection is refused after connecting and nothing reaches the receiver
    assert not result.ok
    assert result.status_code is None
    assert result.error is not None
    assert result.error.startswith("refused: the receiver's address")
    assert script.of("/in") == []


def test_a_name_rebound_to_a_private_address_is_refused_at_connection(
    receiver: tuple[int, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a name that resolves to a loopback address by the time of delivery (DNS rebinding:
    # it may have resolved to a public address when the webhook was configured)
    port, script = receiver
    real_getaddrinfo = socket.getaddrinfo

    def rebinding(host: Any, *args: Any, **kwargs: Any) -> Any:
        return real_getaddrinfo("127.0.0.1" if host == "hooks.rebound.example" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)

    # When the transport of a deployment delivers to it
    result = Transport(is_public_address).post(
        f"http://hooks.rebound.example:{port}/in", BODY, HEADERS, timeout=5
    )

    # Then the address actually connected to is refused
    assert result.error == "refused: the receiver's address 127.0.0.1 is not public"
    assert script.of("/in") == []


def test_the_check_sees_the_address_actually_connected_to(receiver: tuple[int, Script]) -> None:
    # Given a transport whose address check records what it is asked and allows it
    port, script = receiver
    seen: list[str] = []

    def allow(address: str) -> bool:
        seen.append(address)
        return True

    # When it delivers to a name and to an IPv6 literal
    transport = Transport(allow)
    assert transport.post(f"http://localhost:{port}/a", BODY, HEADERS, timeout=5).ok
    assert transport.post(f"http://[::1]:{port}/b", BODY, HEADERS, timeout=5).ok

    # Then the check saw the peer addresses, and the requests arrived
    assert seen == ["127.0.0.1", "::1"]
    assert [r.path for r in script.received] == ["/a", "/b"]
