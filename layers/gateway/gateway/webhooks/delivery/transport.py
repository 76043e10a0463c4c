"""The receiver call: one HTTP POST, its outcome, the connect-time address guard and a hard
deadline.

Outside local mode the address a connection actually reaches (the socket's peer, after DNS and
after connecting) must be public (:func:`gateway.webhooks.addresses.is_public_address`); the
connection is closed before a byte is sent otherwise. Checking the peer, not a name resolved
earlier, also defeats DNS rebinding between the configuration check and the delivery.
Redirects are not followed (a 3xx is a failed attempt) and proxies from the environment are
not used, so nothing else decides where the request goes.

``timeout`` bounds the whole attempt: socket timeouts bound each connect and read, and a
watchdog shuts the connection down when the attempt's total time runs out, so a receiver
trickling its answer byte by byte cannot hold the batch (and the other tenants' events in it).
One watchdog thread serves every attempt (a timer thread per attempt cost more than the POST).

Connections are kept alive and reused, per origin, shared by all threads, bounded
(:data:`CONNECTIONS_PER_ORIGIN` kept per origin, :data:`IDLE_CONNECTIONS_KEPT` in all).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import re
import select
import socket
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from http.client import HTTPException
from urllib.parse import urlsplit

from gateway.webhooks.addresses import is_public_address
from gateway.webhooks.delivery.answer import read_answer
from gateway.webhooks.delivery.constants import (
    CONNECTIONS_PER_ORIGIN,
    IDLE_CONNECTIONS_KEPT,
)

AddressCheck = Callable[[str], bool]

DEFAULT_PORTS = {"http": 80, "https": 443}
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # a header name (RFC 9110)
_LINE_BREAK = re.compile(r"[\r\n\x00]")
_UNSAFE_TARGET = re.compile(r"[\x00-\x20\x7f]")  # what http.client refuses in a request target


class UnsafeAddress(Exception):
    """The connection reached an address the gateway may not call. Not an ``OSError``, so it
    is told apart from a connection that failed."""


@dataclass(frozen=True)
class AttemptResult:
    """What one POST gave: the status (when the receiver answered) or why it failed."""

    status_code: int | None
    duration_ms: int
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None and self.status_code is not None and 200 <= self.status_code < 300


class _Attempt:
    """The connection one attempt uses, so the watchdog (another thread) can cut it."""

    def __init__(self) -> None:
        self.connection: _Connection | None = None
        self.cut = False
        self.done = False
        self._lock = threading.Lock()

    def finish(self) -> None:
        """The attempt has its answer: from now on its connection may go back to the pool (and
        to another thread's attempt), so the watchdog must leave it alone."""
        with self._lock:
            self.done = True

    def cut_connection(self) -> None:
        with self._lock:
            if self.done:
                return
            self.cut = True
            sock = getattr(self.connection, "sock", None)
            if sock is not None:
                with contextlib.suppress(OSError):  # already closed
                    sock.shutdown(socket.SHUT_RDWR)


class _Watchdog:
    """One thread cutting the connections of attempts whose time is up."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, _Attempt]] = []  # (deadline, tie-breaker, attempt): a heap
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def watch(self, attempt: _Attempt, timeout: float) -> None:
        with self._changed:
            heapq.heappush(self._due, (time.monotonic() + timeout, next(self._order), attempt))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="delivery-watchdog", daemon=True)
                self._thread.start()
            if self._due[0][2] is attempt:  # due before any other: wake the watchdog to re-plan
                self._changed.notify()

    def _run(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                while self._due and (self._due[0][2].done or self._due[0][0] <= now):
                    heapq.heappop(self._due)[2].cut_connection()
                self._changed.wait(self._due[0][0] - now if self._due else None)


_watchdog = _Watchdog()


def _verified(sock: socket.socket, allowed: AddressCheck | None) -> socket.socket:
    if allowed is None:
        return sock
    peer = str(sock.getpeername()[0]).split("%", 1)[0]
    if not allowed(peer):
        sock.close()
        raise UnsafeAddress(f"the receiver's address {peer} is not public")
    return sock


Origin = tuple[str, str, int]  # (scheme, host, port)


class _Connection:
    """A keep-alive connection to one origin: its socket (TLS for https), checked (when
    ``allowed`` is given) right after connecting, before TLS or a byte of the request."""

    def __init__(self, origin: Origin, timeout: float, allowed: AddressCheck | None) -> None:
        scheme, host, port = origin
        if scheme not in DEFAULT_PORTS:
            raise ValueError(f"unsupported scheme {scheme!r}")
        self.timeout = timeout
        sock = _verified(socket.create_connection((host, port), timeout), allowed)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # the request is one write
            self.sock = _tls_context().wrap_socket(sock, server_hostname=host) if scheme == "https" else sock
        except BaseException:
            sock.close()
            raise

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()  # verifies the certificate and the host name


def _dropped(connection: _Connection) -> bool:
    """Whether an idle kept connection was closed by the receiver (readable while idle)."""
    poller = select.poll()
    poller.register(connection.sock, select.POLLIN)
    return bool(poller.poll(0))


class _Kept:
    """Idle keep-alive connections, by origin, shared by the threads: at most
    :data:`CONNECTIONS_PER_ORIGIN` per origin and :data:`IDLE_CONNECTIONS_KEPT` in all (those
    of the least recently used origins dropped first). A connection is used by one attempt at
    a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: OrderedDict[Origin, list[_Connection]] = OrderedDict()
        self._count = 0  # idle connections, all origins

    def take(self, origin: Origin) -> _Connection | None:
        while True:
            with self._lock:
                idle = self._idle.get(origin)
                if not idle:
                    return None
                connection = idle.pop()  # the most recently used: the least likely closed by now
                self._count -= 1
                if not idle:  # only origins with idle connections are listed
                    del self._idle[origin]
            if not _dropped(connection):
                return connection
            connection.close()

    def give_back(self, origin: Origin, connection: _Connection) -> None:
        closing: list[_Connection] = []
        with self._lock:
            idle = self._idle.setdefault(origin, [])
            self._idle.move_to_end(origin)
            if len(idle) < CONNECTIONS_PER_ORIGIN:
                idle.append(connection)
                self._count += 1
            else:
                closing.append(connection)
            while self._count > IDLE_CONNECTIONS_KEPT:
                oldest = next(iter(self._idle.values()))  # the least recently used origin's
                closing.append(oldest.pop(0))
                self._count -= 1
                if not oldest:
                    self._idle.popitem(last=False)
        for extra in closing:
            extra.close()


class Transport:
    """POSTs to receivers: the request written in one piece on a kept-alive socket, the answer
    read as far as its status and end (:mod:`~gateway.webhooks.delivery.answer`). CPU per
    loopback POST: urllib3 0.36 ms, http.client's ``HTTPConnection`` 0.17 ms (it validated and
    wrote each header in turn, sent headers and body in two writes, and parsed the answer's
    headers with the email parser), this 0.08 ms. Connections are kept per origin and shared
    by the threads. Proxies and ``.netrc`` from the environment play no part.

    ``address_allowed`` is the connect-time check; ``None`` (local mode) allows any address.
    """

    def __init__(self, address_allowed: AddressCheck | None) -> None:
        self._allowed = address_allowed
        self._kept = _Kept()

    def post(self, url: str, body: bytes, headers: Mapping[str, str], timeout: float) -> AttemptResult:
        """One attempt. Any 2xx within ``timeout`` seconds (in total) is success."""
        attempt = _Attempt()
        began = time.perf_counter()
        _watchdog.watch(attempt, timeout)
        status: int | None = None
        error: str | None = None
        try:
            status = self._exchange(attempt, url, body, headers, timeout)
        except UnsafeAddress as refused:
            error = f"refused: {refused}"
        except TimeoutError:
            error = f"timed out after {timeout:g} s"
        except (HTTPException, OSError, ValueError) as failed:
            error = f"connection failed: {_reason(failed)}"
        finally:
            attempt.finish()
        elapsed = time.perf_counter() - began
        if attempt.cut or (error is None and elapsed > timeout):
            error = f"timed out after {timeout:g} s"
        elif error is None and not 200 <= (status or 0) < 300:
            error = f"receiver answered HTTP {status}"
        return AttemptResult(status_code=status, duration_ms=round(elapsed * 1000), error=error)

    def _exchange(
        self, attempt: _Attempt, url: str, body: bytes, headers: Mapping[str, str], timeout: float
    ) -> int:
        """Send the request and read the answer (its body only when it is kept); its status.
        The connection goes back to the kept ones only when the answer was read to its end."""
        origin, target = _route(url)
        request = _request_head(origin, target, headers, len(body)) + body
        connection = self._kept.take(origin)
        if connection is None:
            connection = _Connection(origin, timeout, self._allowed)
        elif connection.timeout != timeout:
            connection.timeout = timeout
            connection.sock.settimeout(timeout)
        attempt.connection = connection
        try:
            connection.sock.sendall(request)
            # A reader per answer, as http.client does: bytes a receiver sent beyond its answer
            # are not taken for the next one (the socket left readable, it is not reused)
            with connection.sock.makefile("rb") as reader:
                status, reusable = read_answer(reader)
        except BaseException:
            connection.close()
            raise
        attempt.finish()  # from here the connection may be another attempt's
        if reusable:
            self._kept.give_back(origin, connection)
        else:
            connection.close()
        return status


@lru_cache(maxsize=1024)
def _route(url: str) -> tuple[Origin, str]:
    """The origin a URL's requests go to and their target (path and query), worked out once
    per URL (a batch sends many events to each); raises ``ValueError`` for a bad port or a
    target with spaces or control characters."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    origin = (scheme, parts.hostname or "", parts.port or DEFAULT_PORTS.get(scheme, 80))
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if _UNSAFE_TARGET.search(target):
        raise ValueError(f"URL can't contain control characters or spaces: {target!r}")
    return origin, target


def _request_head(origin: Origin, target: str, headers: Mapping[str, str], length: int) -> bytes:
    """The request line and headers of a POST, as http.client would write them (less its
    ``Accept-Encoding: identity``), in one piece: the request goes out in one write. Header
    names must be tokens and values free of line breaks, or ``ValueError``."""
    lines = [f"POST {target} HTTP/1.1", f"Host: {_host_header(origin)}", f"Content-Length: {length}"]
    for name, value in headers.items():
        if not _TOKEN.fullmatch(name) or _LINE_BREAK.search(value):
            raise ValueError(f"invalid header {name!r}")
        lines.append(f"{name}: {value}")
    lines += ("", "")
    return "\r\n".join(lines).encode("latin-1")  # http.client's encoding of header values


@lru_cache(maxsize=1024)
def _host_header(origin: Origin) -> str:
    scheme, host, port = origin
    try:
        name = host.encode("ascii").decode()
    except UnicodeEncodeError:
        name = host.encode("idna").decode()
    if ":" in name:  # an IPv6 literal
        name = f"[{name}]"
    return name if port == DEFAULT_PORTS.get(scheme) else f"{name}:{port}"


def _reason(error: BaseException) -> str:
    """Why a call failed, in a line."""
    return (str(error) or type(error).__name__)[:300]


@lru_cache(maxsize=2)
def transport_for(local_mode: bool) -> Transport:
    """The process's transport: any address in local mode, public addresses only otherwise."""
    return Transport(None if local_mode else is_public_address)
