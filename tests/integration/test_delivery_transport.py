"""The receiver call against real sockets on loopback: outcomes, the one deadline of an attempt
(whatever the receiver does), and the address check that keeps deliveries off loopback and
private networks outside local mode without telling their ports apart."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hostile_receivers import closed_port, filtered, hanging, trickling_tls
from loopback_receiver import Script, loopback_receiver
from waiting import PROMPTLY

from gateway.webhooks.addresses import is_public_address
from gateway.webhooks.delivery.transport import AttemptResult, Transport, transport_for

BODY = b'{"id":"e1","event":"message.received"}'
HEADERS = {
    "Content-Type": "application/json",
    "X-Webhook-Id": "e1",
    "User-Agent": "messaging-gateway-webhooks",
}

# How late an attempt with a 1 s timeout may be seen to end. Every receiver below would hold an
# attempt without the one deadline for 8 s or more, so the bound still tells.
CUT_BY_MS = (1 + PROMPTLY) * 1000


def post(
    transport: Transport, url: str, timeout: float = 5, headers: dict[str, str] = HEADERS
) -> AttemptResult:
    return transport.post(url, BODY, headers, timeout).result(timeout=timeout + 5)


@pytest.fixture
def receiver() -> Iterator[tuple[int, Script]]:
    with loopback_receiver() as running:
        yield running


def test_any_2xx_is_a_success_and_the_request_arrives_as_sent(receiver: tuple[int, Script]) -> None:
    # Given a receiver answering 204
    port, script = receiver
    script.statuses["/in?tenant=a"] = [204]

    # When the event is posted
    result = post(Transport(None), f"http://127.0.0.1:{port}/in?tenant=a")

    # Then it is a success, and the receiver got the exact body and the headers, nothing more
    assert result.ok
    assert (result.status_code, result.error) == (204, None)
    (received,) = script.of("/in?tenant=a")
    assert received.body == BODY
    assert received.headers == {
        "host": f"127.0.0.1:{port}",
        "content-length": str(len(BODY)),
        **{name.lower(): value for name, value in HEADERS.items()},
    }


@pytest.mark.parametrize("status", [500, 404, 302])
def test_another_status_is_a_failure_and_redirects_are_not_followed(
    receiver: tuple[int, Script], status: int
) -> None:
    port, script = receiver
    script.statuses["/in"] = [status]
    result = post(Transport(None), f"http://127.0.0.1:{port}/in")
    assert not result.ok
    assert result.status_code == status
    assert result.error == f"receiver answered HTTP {status}"
    assert [r.path for r in script.received] == ["/in"]  # no request to the redirect's target


def test_an_unasked_protocol_switch_is_a_failure(receiver: tuple[int, Script]) -> None:
    port, script = receiver
    script.statuses["/in"] = [101]
    result = post(Transport(None), f"http://127.0.0.1:{port}/in")
    assert not result.ok
    assert result.error is not None
    assert result.error.startswith("connection failed:")


def test_a_receiver_slower_than_the_timeout_is_a_failure(receiver: tuple[int, Script]) -> None:
    port, script = receiver
    script.delays["/slow"] = 10.0
    result = post(Transport(None), f"http://127.0.0.1:{port}/slow", timeout=1)
    assert not result.ok
    assert result.error == "timed out after 1 s"
    assert 950 <= result.duration_ms < CUT_BY_MS


@pytest.fixture
def trickling_answer() -> Iterator[int]:
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


def test_the_timeout_bounds_an_answer_trickled_byte_by_byte(trickling_answer: int) -> None:
    result = post(Transport(None), f"http://127.0.0.1:{trickling_answer}/in", timeout=1)
    assert result.error == "timed out after 1 s"
    assert result.duration_ms < CUT_BY_MS


def test_the_timeout_bounds_a_tls_handshake_trickled_byte_by_byte() -> None:
    # Given a receiver that keeps every read of the TLS handshake short but never ends it
    with trickling_tls() as receiver:
        # When an attempt with a 1 s timeout is made
        result = post(Transport(None), f"https://localhost:{receiver.port}/in", timeout=1)

    # Then it is cut at 1 s, though the connection and each read made progress
    assert result.error == "timed out after 1 s"
    assert result.duration_ms < CUT_BY_MS
    assert receiver.accepted == 1


def test_the_timeout_bounds_a_connection_that_never_completes() -> None:
    with filtered() as port:
        result = post(Transport(None), f"http://127.0.0.1:{port}/in", timeout=1)
    assert result.error == "timed out after 1 s"
    assert result.duration_ms < CUT_BY_MS


def test_the_timeout_bounds_a_name_with_several_addresses_that_never_connect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a name with eight addresses, none of which completes a connection (1 s for each
    # would be 8 s)
    loopbacks = tuple(f"127.0.0.{n}" for n in range(1, 9))
    real = socket.getaddrinfo

    def dead(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "dead.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in loopbacks]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", dead)

    # When an attempt with a 1 s timeout is made, it is cut at 1 s in all
    with filtered(loopbacks) as port:
        result = post(Transport(None), f"http://dead.example:{port}/in", timeout=1)
    assert result.error == "timed out after 1 s"
    assert result.duration_ms < CUT_BY_MS


def test_the_timeout_bounds_name_resolution_and_one_lookup_serves_every_attempt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a name whose resolver takes 8 s to answer
    real = socket.getaddrinfo
    lookups: list[str] = []

    def slow(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "slow-dns.example":
            lookups.append(host)
            time.sleep(8)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)

    # When ten attempts with a 1 s timeout go to it at once
    transport = Transport(None)
    began = time.monotonic()
    attempts = [transport.post("http://slow-dns.example/in", BODY, HEADERS, 1) for _ in range(10)]
    results = [attempt.result(timeout=7) for attempt in attempts]

    # Then each is cut at 1 s, and the name was looked up once
    assert {result.error for result in results} == {"timed out after 1 s"}
    assert time.monotonic() - began < CUT_BY_MS / 1000
    assert lookups == ["slow-dns.example"]


def test_a_refused_connection_is_a_failure() -> None:
    result = post(Transport(None), f"http://127.0.0.1:{closed_port()}/in", timeout=2)
    assert result.status_code is None
    assert result.error == "connection failed: Connection refused"


@pytest.mark.parametrize(
    "headers",
    [{"X-Custom": "a\r\nX-Injected: 1"}, {"X-Custom": "a\nb"}, {"X-Custom": "a\x00b"}, {"X Custom": "a"}],
)
def test_a_header_that_could_split_the_request_fails_the_attempt(
    receiver: tuple[int, Script], headers: dict[str, str]
) -> None:
    port, script = receiver
    result = post(Transport(None), f"http://127.0.0.1:{port}/in", headers=headers)
    assert result.error is not None
    assert result.error.startswith("connection failed:")
    assert script.received == []


def test_a_target_with_spaces_or_control_characters_cannot_inject_a_request(
    receiver: tuple[int, Script],
) -> None:
    port, script = receiver
    post(Transport(None), f"http://127.0.0.1:{port}/in HTTP/1.1\r\nX-Injected: 1\r\n\r\nPOST /x")
    assert all("x-injected" not in r.headers and r.path != "/x" for r in script.received)


def test_connections_are_kept_alive_but_not_after_an_answer_too_long_to_read() -> None:
    # Given a receiver that answers 200 with a body of 10 bytes, but its third answer has 1 MB
    clients: list[tuple[str, int]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            clients.append(self.client_address[:2])
            size = 1_000_000 if len(clients) == 3 else 10
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            with contextlib.suppress(OSError):  # the gateway stops reading the long one
                self.wfile.write(b"x" * size)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        transport = Transport(None)
        url = f"http://127.0.0.1:{server.server_address[1]}/in"
        # When four events are posted one after another
        results = [post(transport, url) for _ in range(4)]
    finally:
        server.shutdown()
        server.server_close()

    # Then all succeed; the first three share a connection, the one after the long answer does not
    assert all(result.ok for result in results), results
    assert clients[0] == clients[1] == clients[2]
    assert clients[3] != clients[2]


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "localhost"],
    ids=["ipv4-loopback", "ipv6-loopback", "ipv4-mapped-ipv6", "name-resolving-to-loopback"],
)
def test_outside_local_mode_a_non_public_receiver_is_refused_before_connecting(
    receiver: tuple[int, Script], host: str
) -> None:
    # Given the transport of a deployment (only public addresses)
    port, script = receiver

    # When it is asked to deliver to a loopback receiver, in any spelling
    result = post(transport_for(local_mode=False), f"http://{host}:{port}/in")

    # Then it is refused and nothing reaches the receiver
    assert not result.ok
    assert result.status_code is None
    assert result.error is not None
    assert result.error.startswith("refused: the receiver's address")
    assert script.of("/in") == []


def test_the_refusal_is_the_same_whether_an_internal_port_is_open_closed_filtered_or_hanging() -> None:
    # Given internal ports in every state: open (a receiver), hanging, closed, filtered
    deployed = transport_for(local_mode=False)
    with loopback_receiver() as (open_port, script), hanging() as hung, filtered() as dropped:
        ports = {"open": open_port, "hanging": hung.port, "closed": closed_port(), "filtered": dropped}

        # When the deployment's transport is pointed at each
        results = {
            state: post(deployed, f"http://127.0.0.1:{port}/in", timeout=10) for state, port in ports.items()
        }

        # Then every answer is the same, at once, and no connection was made to any of them
        assert {result.error for result in results.values()} == {
            "refused: the receiver's address 127.0.0.1 is not public"
        }
        assert {result.status_code for result in results.values()} == {None}
        assert max(result.duration_ms for result in results.values()) < PROMPTLY * 1000
        assert script.received == []
        assert hung.accepted == 0


def test_a_name_rebound_to_a_private_address_is_refused(
    receiver: tuple[int, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a name that resolves to a loopback address by the time of delivery (DNS rebinding:
    # it may have resolved to a public address when the webhook was configured), next to one
    # it resolves to that is public
    port, script = receiver
    real_getaddrinfo = socket.getaddrinfo

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "hooks.rebound.example":
            return [
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port)),
            ]
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)

    # When the transport of a deployment delivers to it
    result = post(Transport(is_public_address), f"http://hooks.rebound.example:{port}/in")

    # Then the delivery is refused for the private address, before any connection
    assert result.error == "refused: the receiver's address 127.0.0.1 is not public"
    assert script.of("/in") == []


def test_the_check_sees_every_address_of_the_name_and_the_peer_connected_to(
    receiver: tuple[int, Script],
) -> None:
    # Given a transport whose address check records what it is asked and allows it
    port, script = receiver
    seen: list[str] = []

    def allow(address: str) -> bool:
        seen.append(address)
        return True

    # When it delivers to a name and to an IPv6 literal
    transport = Transport(allow)
    assert post(transport, f"http://localhost:{port}/a").ok
    resolved = {info[4][0] for info in socket.getaddrinfo("localhost", port, type=socket.SOCK_STREAM)}
    assert set(seen[:-1]) == resolved  # every address, before connecting
    assert seen[-1] in resolved  # and the peer, once connected
    seen.clear()
    assert post(transport, f"http://[::1]:{port}/b").ok

    # Then the check saw the IPv6 peer too, and the requests arrived
    assert seen == ["::1", "::1"]
    assert [r.path for r in script.received] == ["/a", "/b"]
