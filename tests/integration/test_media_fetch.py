"""Fetching a media ``url`` against real sockets on loopback: size limits enforced without
reading a huge body, the total timeout, redirects, and the webhook address rules outside
local mode (checked before connecting and again on the address actually connected to)."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from waiting import PROMPTLY

from gateway.config import get_settings
from gateway.media import fetch as fetch_module
from gateway.media import urls as urls_module
from gateway.media.errors import MediaNotFetched, MediaTooLarge, MediaUrlRefused
from gateway.media.fetch import fetch
from gateway.webhooks.addresses import is_public_address

Handler = Callable[[socket.socket, threading.Event], None]
PNG = b"\x89PNG\r\n\x1a\n" + bytes(100)


@contextmanager
def http_server(handler: Handler) -> Iterator[int]:
    """A loopback server running ``handler(connection, stop)`` for each connection."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                return
            thread = threading.Thread(target=_serve_one, args=(handler, connection, stop), daemon=True)
            thread.start()
            threads.append(thread)

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept (close alone does not)
        server.close()
        for thread in [acceptor, *threads]:
            thread.join(timeout=10)


def _serve_one(handler: Handler, connection: socket.socket, stop: threading.Event) -> None:
    with connection:
        connection.recv(65536)  # the request (a GET fits)
        with contextlib.suppress(OSError):  # the client went away
            handler(connection, stop)


def answer(body: bytes, content_type: str = "image/png") -> Handler:
    def handle(connection: socket.socket, stop: threading.Event) -> None:
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
        connection.sendall(head.encode() + body)

    return handle


def redirect(location: str) -> Handler:
    def handle(connection: socket.socket, stop: threading.Event) -> None:
        connection.sendall(
            f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()
        )

    return handle


@pytest.fixture
def deployed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Settings as deployed (no local mode); plain HTTP allowed so loopback servers can answer."""
    monkeypatch.setitem(os.environ, "GATEWAY_LOCAL_MODE", "false")
    monkeypatch.setitem(os.environ, "ALLOW_HTTP_WEBHOOKS", "true")
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


@pytest.fixture
def loopback_is_public(monkeypatch: pytest.MonkeyPatch, deployed: None) -> None:
    """Outside local mode, 127.0.0.1 (the test's servers) counts as public; nothing else changes.
    Both checks see it: of each URL before connecting, and of each connection's peer."""
    for module in (urls_module, fetch_module):
        monkeypatch.setattr(
            module, "is_public_address", lambda a: str(a) == "127.0.0.1" or is_public_address(a)
        )


def fake_names(monkeypatch: pytest.MonkeyPatch, names: dict[str, list[str]]) -> None:
    """``socket.getaddrinfo`` answering ``names`` (the answers of a name are used in turn)."""
    real = socket.getaddrinfo

    def fake(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host in names:
            address = names[host].pop(0) if len(names[host]) > 1 else names[host][0]
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (address, port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)


def test_the_body_and_the_servers_type_come_back() -> None:
    # Given a server answering a PNG (local mode: loopback is fine)
    with http_server(answer(PNG)) as port:
        # When its URL is fetched
        fetched = fetch(f"http://127.0.0.1:{port}/a.png", max_bytes=1024)

    # Then the bytes and the content type are the server's
    assert fetched.data == PNG
    assert fetched.content_type == "image/png"


def test_a_content_length_over_the_limit_is_refused_without_reading_the_body() -> None:
    # Given a server that announces 10 MB but never sends them
    def announce_only(connection: socket.socket, stop: threading.Event) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 10485760\r\n\r\n" + bytes(10))
        stop.wait(60)

    with http_server(announce_only) as port:
        began = time.monotonic()

        # When it is fetched with a 1 MB limit
        with pytest.raises(MediaTooLarge, match="larger than 1 MB"):
            fetch(f"http://127.0.0.1:{port}/big", max_bytes=1024 * 1024, timeout=30)

        # Then the refusal comes at once, not after waiting for the body
        assert time.monotonic() - began < PROMPTLY


def test_a_chunked_body_over_the_limit_stops_being_read_early() -> None:
    # Given a server streaming 64 MB in chunks, without a length
    total = 64 * 1024 * 1024
    sent = [0]

    def stream(connection: socket.socket, stop: threading.Event) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = bytes(64 * 1024)
        while sent[0] < total and not stop.is_set():
            connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent[0] += len(chunk)
        connection.sendall(b"0\r\n\r\n")

    # When it is fetched with a 256 KB limit
    with http_server(stream) as port, pytest.raises(MediaTooLarge):
        fetch(f"http://127.0.0.1:{port}/stream", max_bytes=256 * 1024, timeout=20)

    # Then the fetch gave up long before the end (the server found the connection closed)
    assert sent[0] < total // 2


def test_the_timeout_bounds_the_whole_fetch_not_each_read() -> None:
    # Given a server that sends a byte every 0.3 s, never a gap as long as the timeout
    def trickle(connection: socket.socket, stop: threading.Event) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        while not stop.wait(0.3):
            connection.sendall(b"x")

    with http_server(trickle) as port:
        began = time.monotonic()

        # When it is fetched with a 1 s timeout
        with pytest.raises(MediaNotFetched, match="not fetched within 1 s"):
            fetch(f"http://127.0.0.1:{port}/slow", max_bytes=1024, timeout=1)

        # Then the fetch is cut at 1 s
        assert time.monotonic() - began < 1 + PROMPTLY


def test_an_http_error_is_not_fetched() -> None:
    def not_found(connection: socket.socket, stop: threading.Event) -> None:
        connection.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")

    with http_server(not_found) as port, pytest.raises(MediaNotFetched, match="HTTP 404"):
        fetch(f"http://127.0.0.1:{port}/missing", max_bytes=1024)


def test_a_redirect_to_a_public_address_is_followed(loopback_is_public: None) -> None:
    # Given (outside local mode) a server redirecting to another path of itself
    with (
        http_server(answer(PNG)) as target,
        http_server(redirect(f"http://127.0.0.1:{target}/b.png")) as port,
    ):
        # When the first URL is fetched
        # Then the body comes from the redirect's target
        assert fetch(f"http://127.0.0.1:{port}/a.png", max_bytes=1024).data == PNG


@pytest.mark.parametrize("location", ["http://10.0.0.1/a.png", "http://169.254.169.254/latest/meta-data/"])
def test_a_redirect_to_a_private_address_is_refused(loopback_is_public: None, location: str) -> None:
    # Given (outside local mode) a public server redirecting to a private address
    # When it is fetched
    # Then the redirect is refused before anything connects there
    with http_server(redirect(location)) as port, pytest.raises(MediaUrlRefused, match="non-public address"):
        fetch(f"http://127.0.0.1:{port}/a.png", max_bytes=1024, timeout=5)


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.1/a.png",
        "https://127.0.0.1/a.png",
        "https://[::1]/a.png",
        "https://[::ffff:127.0.0.1]/a.png",
        "https://169.254.169.254/latest/meta-data/",
        "https://loopback.media.example/a.png",
    ],
)
def test_non_public_addresses_are_refused_outside_local_mode(
    deployed: None, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    # Given settings as deployed, and a name that resolves to loopback
    fake_names(monkeypatch, {"loopback.media.example": ["127.0.0.1"]})

    # When the URL is fetched
    # Then it is refused, naming the address
    with pytest.raises(MediaUrlRefused, match="non-public address"):
        fetch(url, max_bytes=1024, timeout=5)


def test_a_name_rebound_to_loopback_is_refused_at_connection(
    deployed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a name that resolves to a public address when checked, then to loopback
    with http_server(answer(PNG)) as port:
        fake_names(monkeypatch, {"rebind.media.example": ["93.184.215.14", "127.0.0.1"]})

        # When it is fetched
        # Then the connection's peer is checked and refused before the request is sent
        with pytest.raises(MediaUrlRefused, match=r"non-public address \(127.0.0.1\)"):
            fetch(f"http://rebind.media.example:{port}/a.png", max_bytes=1024, timeout=5)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://files.example/a.png", "https URL"),
        ("https://user:secret@files.example/a.png", "credentials"),
        ("https:///a.png", "no host"),
    ],
)
def test_urls_of_the_wrong_shape_are_refused(url: str, reason: str) -> None:
    with pytest.raises(MediaUrlRefused, match=reason):
        fetch(url, max_bytes=1024)


def test_plain_http_is_refused_when_the_deployment_does_not_allow_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given settings as deployed with HTTPS only
    monkeypatch.setitem(os.environ, "GATEWAY_LOCAL_MODE", "false")
    monkeypatch.setitem(os.environ, "ALLOW_HTTP_WEBHOOKS", "false")
    get_settings.cache_clear()
    try:
        # When a plain-HTTP URL is fetched
        # Then it is refused
        with pytest.raises(MediaUrlRefused, match="must use https"):
            fetch("http://files.example/a.png", max_bytes=1024)
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
