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

Connections are kept alive and reused, in one pool per origin shared by all threads, bounded
(:data:`CONNECTIONS_PER_ORIGIN` kept per origin, :data:`ORIGINS_KEPT` origins).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import re
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from urllib3 import PoolManager, Timeout
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import HTTPError, NewConnectionError
from urllib3.exceptions import TimeoutError as Urllib3Timeout
from urllib3.response import BaseHTTPResponse

from gateway.webhooks.addresses import is_public_address
from gateway.webhooks.delivery.constants import CONNECTIONS_PER_ORIGIN, MAX_RESPONSE_BYTES, ORIGINS_KEPT

AddressCheck = Callable[[str], bool]


class UnsafeAddress(Exception):
    """The connection reached an address the gateway may not call. Not an ``OSError``, so
    urllib3 lets it through untouched instead of retrying another way."""


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
        self.connection: HTTPConnection | None = None
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


_current = threading.local()  # .attempt: the _Attempt of the thread's ongoing POST


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


def _pool_manager(allowed: AddressCheck | None) -> PoolManager:
    """Pools, one per origin, whose connections check their peer address right after connecting
    (when ``allowed`` is given) and are handed to the thread's ongoing attempt."""

    class DeliveryHTTPConnection(HTTPConnection):
        def _new_conn(self) -> socket.socket:
            return _verified(super()._new_conn(), allowed)

    class DeliveryHTTPSConnection(HTTPSConnection):
        def _new_conn(self) -> socket.socket:
            return _verified(super()._new_conn(), allowed)

    def handed_to_the_attempt(connection: Any) -> Any:
        attempt: _Attempt | None = getattr(_current, "attempt", None)
        if attempt is not None:
            attempt.connection = connection
        return connection

    def taken_from_the_attempt() -> None:
        # urllib3 puts a connection back as soon as its answer is read: from then on it may be
        # another thread's, so the watchdog must no longer cut it
        attempt: _Attempt | None = getattr(_current, "attempt", None)
        if attempt is not None:
            attempt.finish()

    class DeliveryHTTPPool(HTTPConnectionPool):
        ConnectionCls = DeliveryHTTPConnection

        def _get_conn(self, timeout: float | None = None) -> Any:
            return handed_to_the_attempt(super()._get_conn(timeout))

        def _put_conn(self, conn: Any) -> None:
            taken_from_the_attempt()
            super()._put_conn(conn)

    class DeliveryHTTPSPool(HTTPSConnectionPool):
        ConnectionCls = DeliveryHTTPSConnection

        def _get_conn(self, timeout: float | None = None) -> Any:
            return handed_to_the_attempt(super()._get_conn(timeout))

        def _put_conn(self, conn: Any) -> None:
            taken_from_the_attempt()
            super()._put_conn(conn)

    manager = PoolManager(num_pools=ORIGINS_KEPT, maxsize=CONNECTIONS_PER_ORIGIN, block=False)
    manager.pool_classes_by_scheme = {"http": DeliveryHTTPPool, "https": DeliveryHTTPSPool}
    return manager


class Transport:
    """POSTs to receivers, with urllib3 (requests cost as much CPU again per call, and kept
    cookies): one pool per origin, shared by the threads, keeps the connections alive.
    Proxies and ``.netrc`` from the environment play no part.

    ``address_allowed`` is the connect-time check; ``None`` (local mode) allows any address.
    """

    def __init__(self, address_allowed: AddressCheck | None) -> None:
        self._pools = _pool_manager(address_allowed)

    def post(self, url: str, body: bytes, headers: Mapping[str, str], timeout: float) -> AttemptResult:
        """One attempt. Any 2xx within ``timeout`` seconds (in total) is success."""
        attempt = _current.attempt = _Attempt()
        began = time.perf_counter()
        _watchdog.watch(attempt, timeout)
        status: int | None = None
        error: str | None = None
        try:
            response = self._pools.urlopen(
                "POST",
                url,
                body=body,
                headers=dict(headers),
                timeout=Timeout(connect=timeout, read=timeout),
                retries=False,
                redirect=False,
                preload_content=False,
            )
            status = response.status
            _drain(response)
        except UnsafeAddress as refused:
            error = f"refused: {refused}"
        except NewConnectionError as failed:  # a subclass of the connect timeout, but not one
            error = f"connection failed: {_reason(failed)}"
        except Urllib3Timeout:
            error = f"timed out after {timeout:g} s"
        except (HTTPError, OSError) as failed:
            error = f"connection failed: {_reason(failed)}"
        finally:
            attempt.finish()
            _current.attempt = None
        elapsed = time.perf_counter() - began
        if attempt.cut or (error is None and elapsed > timeout):
            error = f"timed out after {timeout:g} s"
        elif error is None and not 200 <= (status or 0) < 300:
            error = f"receiver answered HTTP {status}"
        return AttemptResult(status_code=status, duration_ms=round(elapsed * 1000), error=error)


def _drain(response: BaseHTTPResponse) -> None:
    """Read a short answer to its end (urllib3 then puts the connection back in its pool); stop
    reading a long one at the limit and close the connection."""
    received = 0
    for chunk in response.stream(8192, decode_content=False):
        received += len(chunk)
        if received >= MAX_RESPONSE_BYTES:
            response.close()
            return
    response.release_conn()


_OBJECT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-f]+>: ")


def _reason(error: BaseException) -> str:
    """The innermost cause of a urllib3 error, without object addresses."""
    reason: object = error
    while True:
        inner = getattr(reason, "reason", None) or (reason.args[0] if getattr(reason, "args", None) else None)
        if not isinstance(inner, BaseException) or inner is reason:
            break
        reason = inner
    return _OBJECT_REPR.sub("", str(reason))[:300]


@lru_cache(maxsize=2)
def transport_for(local_mode: bool) -> Transport:
    """The process's transport: any address in local mode, public addresses only otherwise."""
    return Transport(None if local_mode else is_public_address)
