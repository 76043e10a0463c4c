"""A real HTTP receiver of webhook deliveries on loopback, for the end-to-end tests.

Every POST is recorded (path, headers, raw body, arrival time) and answered by the behaviour
of its path: a status, optionally after a delay (a delay longer than the webhook's timeout is
a receiver that times out). The listening socket can be closed and opened again on the same
port: a receiver refusing connections.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Request:
    """One delivery attempt as the receiver saw it."""

    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    received_at: float  # time.monotonic()
    status: int  # what the receiver answered (or was about to, for a timeout)

    @property
    def envelope(self) -> dict[str, Any]:
        return json.loads(self.body)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@dataclass(frozen=True)
class Answer:
    status: int = 200
    delay: float = 0.0


Behaviour = Callable[[dict[str, Any], int], Answer]
"""(envelope, how many requests of the same event id came before) -> the answer."""


def always(status: int = 200, delay: float = 0.0) -> Behaviour:
    return lambda _envelope, _earlier: Answer(status, delay)


def failing_first(failures: int, status: int = 500, delay: float = 0.0) -> Behaviour:
    """Fail the first ``failures`` attempts of each event, then answer 200."""
    return lambda _envelope, earlier: Answer(status, delay) if earlier < failures else Answer(200)


class _Server(ThreadingHTTPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 1024  # a real server's backlog: with 5 (the default) bursts of connects are reset


class Receiver:
    """The loopback receiver; ``path()`` gives each test a path of its own."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._requests: list[Request] = []
        self._counts: Counter[tuple[str, str]] = Counter()  # (path, event id) -> requests so far
        self._behaviours: dict[str, Behaviour] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # --- listening ----------------------------------------------------------------------

    def start(self) -> Receiver:
        """Listen (again) on the receiver's port (a free one the first time)."""
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver._answer(self, body)

            def log_message(self, *args: object) -> None:
                pass

        self._server = _Server(("127.0.0.1", self.port), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="receiver", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close the listening socket: connections are refused until :meth:`start`."""
        assert self._server is not None
        assert self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        self._server = None

    # --- behaviours and records ---------------------------------------------------------

    def path(self, behaviour: Behaviour | None = None) -> str:
        """A new path answered by ``behaviour`` (200 by default)."""
        path = f"/hooks/{uuid.uuid4().hex}"
        self._behaviours[path] = behaviour or always()
        return path

    def behave(self, path: str, behaviour: Behaviour) -> None:
        self._behaviours[path] = behaviour

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def requests(self, path: str, event: str | None = None) -> list[Request]:
        with self._lock:
            return [
                r
                for r in self._requests
                if r.path == path and (event is None or r.headers.get("x-webhook-event") == event)
            ]

    def wait_for(
        self,
        path: str,
        condition: Callable[[list[Request]], bool],
        timeout: float = 15.0,
        expected: str = "the condition",
    ) -> list[Request]:
        """The requests of ``path`` once ``condition`` holds for them, waiting up to ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                found = [r for r in self._requests if r.path == path]
                if condition(found):
                    return found
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"{expected} not met within {timeout} s ({len(found)} requests)"
                self._lock.wait(remaining)

    def _answer(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        received_at = time.monotonic()
        try:
            envelope = json.loads(body)
        except ValueError:
            envelope = {}
        behaviour = self._behaviours.get(handler.path, always(404))
        with self._lock:
            key = (handler.path, str(envelope.get("id")))
            earlier = self._counts[key]
            self._counts[key] += 1
            answer = behaviour(envelope, earlier)
            headers = {name.lower(): value for name, value in handler.headers.items()}
            self._requests.append(Request(handler.path, headers, body, received_at, answer.status))
            self._lock.notify_all()
        if answer.delay:
            time.sleep(answer.delay)
        try:
            handler.send_response(answer.status)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        except OSError:
            pass  # the gateway gave up waiting (a timeout) and closed the connection
