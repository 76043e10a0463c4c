"""A small HTTP receiver for the delivery integration tests: answers each POST with the next
scripted status (after an optional delay) and records what it got."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float
    client: tuple[str, int]  # the connection's (address, port): one per connection


@dataclass
class Script:
    """Per path: statuses answered in turn (the last one repeats) and a delay before answering."""

    statuses: dict[str, list[int]] = field(default_factory=dict)
    delays: dict[str, float] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, path: str) -> tuple[int, float]:
        with self.lock:
            statuses = self.statuses.get(path, [200])
            status = statuses.pop(0) if len(statuses) > 1 else statuses[0]
        return status, self.delays.get(path, 0.0)

    def of(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == path]


class _DualStackServer(ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True
    request_queue_size = 128  # a real server's backlog: with 5 (the default) a batch's connects are reset

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # IPv4 and IPv6 loopback
        super().server_bind()


@contextmanager
def loopback_receiver() -> Iterator[tuple[int, Script]]:
    """A receiver on every loopback address (127.0.0.1, ::1, ::ffff:127.0.0.1); yields its port."""
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {name.lower(): value for name, value in self.headers.items()}
            with script.lock:
                received = Received(self.path, headers, body, time.monotonic(), self.client_address[:2])
                script.received.append(received)
            status, delay = script.answer(self.path)
            time.sleep(delay)
            try:
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()
            except OSError:
                pass  # the client gave up (a timeout)

        def log_message(self, *args: object) -> None:
            pass

    server = _DualStackServer(("::", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], script
    finally:
        server.shutdown()
        server.server_close()
