"""The receiver call: one HTTP POST under one deadline, and the address guard.

The request is built by httpx (URL, ``Host``, ``Content-Length``) and sent by httpcore's
connection pool, the engine of httpx's own transport, through :class:`GuardedBackend`, a
network backend of httpcore's public interface. (httpx's ``AsyncHTTPTransport`` takes no
network backend, and its ``AsyncClient`` would keep the receivers' cookies across tenants.)

**One deadline.** Every attempt runs as a task of one event loop on a thread of its own
(:func:`delivery_loop`), inside ``asyncio.timeout(timeout)``: name resolution, connect, TLS,
the write and the answer are all cut when the attempt's time is up, whatever a receiver
does (a handshake trickled byte by byte included). The pool opens a connection per
concurrent request (no connection limit to queue behind), so one receiver's slowness is on
no other attempt's path.

**Addresses.** Outside local mode every address the receiver's name resolves to must be
public (:func:`gateway.webhooks.addresses.is_public_address`), before anything is opened:
so a name re-pointed at an internal address (DNS rebinding) is refused, and the refusal is
the same whether an internal port is open, closed or filtered (no port-scan oracle). The
connection is made to the checked address itself, and its peer is checked again once
connected. Redirects are not followed (a 3xx is a failed attempt); proxies and ``.netrc``
from the environment play no part.

Name resolution runs on threads of its own, one lookup at a time per (host, port) shared by
every attempt waiting for it: a name whose resolver hangs holds one thread, not one per event.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ipaddress
import math
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import httpcore
import httpx

from gateway.webhooks.addresses import is_public_address
from gateway.webhooks.delivery.constants import (
    DELIVERY_LOOP_THREAD,
    IDLE_CONNECTIONS_KEPT,
    KEEPALIVE_SECONDS,
    MAX_RESPONSE_BYTES,
    RESOLVER_THREADS,
)
from gateway.webhooks.delivery.lanes import Lanes

AddressCheck = Callable[[str], bool]


class UnsafeAddress(Exception):
    """The receiver's name resolves to an address the gateway may not call. Not an ``OSError``,
    so it is told apart from a connection that failed."""


@dataclass(frozen=True)
class AttemptResult:
    """What one POST gave: the status (when the receiver answered) or why it failed."""

    status_code: int | None
    duration_ms: int
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None and self.status_code is not None and 200 <= self.status_code < 300


@lru_cache(maxsize=1)
def delivery_loop() -> asyncio.AbstractEventLoop:
    """The process's event loop for receiver calls, running on a daemon thread: Lambda runs
    the batch processor's loop for one invocation at a time, the local worker one per
    invocation, and kept-alive connections must outlive both."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name=DELIVERY_LOOP_THREAD, daemon=True).start()
    return loop


class _Resolver:
    """``socket.getaddrinfo`` on threads of its own; concurrent lookups of one (host, port)
    share one call."""

    def __init__(self) -> None:
        self._threads = concurrent.futures.ThreadPoolExecutor(
            RESOLVER_THREADS, thread_name_prefix="delivery-dns"
        )
        self._pending: dict[tuple[str, int], asyncio.Future[list[str]]] = {}

    async def addresses(self, host: str, port: int) -> list[str]:
        """The addresses ``host`` resolves to, in the resolver's order (a literal: itself)."""
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            pass
        key = (host, port)
        lookup = self._pending.get(key)
        if lookup is None:
            lookup = asyncio.get_running_loop().run_in_executor(self._threads, _lookup, host, port)
            self._pending[key] = lookup
            lookup.add_done_callback(lambda done: self._forget(key, done))
        return await asyncio.shield(lookup)  # an attempt that gives up leaves it to the others

    def _forget(self, key: tuple[str, int], done: asyncio.Future[list[str]]) -> None:
        if self._pending.get(key) is done:
            del self._pending[key]
        if not done.cancelled():
            done.exception()  # retrieved: a lookup whose attempts all gave up is not an error


def _lookup(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]).split("%", 1)[0] for info in infos))


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's AnyIO backend, connecting only where ``allowed`` says (``None``: anywhere)."""

    def __init__(self, allowed: AddressCheck | None) -> None:
        self._allowed = allowed
        self._network = httpcore.AnyIOBackend()
        self._resolver = _Resolver()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """A connection to the first address of ``host`` that accepts one, once every address
        is allowed; TLS, when wanted, is the pool's next step (``start_tls``)."""
        addresses = await self._resolver.addresses(host, port)
        for address in addresses:
            self._check(address)
        failure: Exception = httpcore.ConnectError(f"{host} has no address")
        for address in addresses:
            try:
                stream = await self._network.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as failed:
                failure = httpcore.ConnectError(_reason(failed))  # the pool drops the cause
                continue
            peer = stream.get_extra_info("server_addr")
            if peer is None:  # closed by the receiver already
                await stream.aclose()
                failure = httpcore.ConnectError("the receiver closed the connection at once")
                continue
            try:
                self._check(str(peer[0]).split("%", 1)[0])
            except UnsafeAddress:
                await stream.aclose()
                raise
            return stream
        raise failure

    async def sleep(self, seconds: float) -> None:
        await self._network.sleep(seconds)

    def _check(self, address: str) -> None:
        if self._allowed is not None and not self._allowed(address):
            raise UnsafeAddress(f"the receiver's address {address} is not public")


class Transport:
    """POSTs to receivers, each under its own deadline, on :func:`delivery_loop`.

    ``address_allowed`` is the address check; ``None`` (local mode) allows any address.
    Connections are kept alive per origin (:data:`IDLE_CONNECTIONS_KEPT` idle ones in all,
    for :data:`KEEPALIVE_SECONDS`); a connection the receiver closed while idle is not reused.
    """

    def __init__(
        self, address_allowed: AddressCheck | None, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context or ssl.create_default_context(),  # certificate and name verified
            max_connections=None,  # a connection per concurrent attempt: nobody queues behind a slow one
            max_keepalive_connections=IDLE_CONNECTIONS_KEPT,
            keepalive_expiry=KEEPALIVE_SECONDS,
            network_backend=GuardedBackend(address_allowed),
        )
        self._lanes = Lanes()

    def post(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        timeout: float,
        lane: Hashable | None = None,
        start_by: float = math.inf,
    ) -> concurrent.futures.Future[AttemptResult]:
        """Start one attempt; any 2xx within ``timeout`` seconds (in all) is success. Cancelling
        the future cuts the attempt.

        With a ``lane`` (the configuration), the attempt first waits for a slot of it
        (``lanes.py``) until ``start_by`` (``time.monotonic()``) at most: the future then raises
        :class:`~gateway.webhooks.delivery.lanes.NotStarted`, nothing sent.
        """
        if lane is None:
            return asyncio.run_coroutine_threadsafe(
                self._attempt(url, body, headers, timeout), delivery_loop()
            )
        in_lane = self._in_lane(lane, start_by, url, body, headers, timeout)
        return asyncio.run_coroutine_threadsafe(in_lane, delivery_loop())

    async def _in_lane(
        self,
        lane: Hashable,
        start_by: float,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        timeout: float,
    ) -> AttemptResult:
        async with self._lanes.slot(lane, start_by):
            return await self._attempt(url, body, headers, timeout)

    async def _attempt(
        self, url: str, body: bytes, headers: Mapping[str, str], timeout: float
    ) -> AttemptResult:
        began = time.perf_counter()
        status: int | None = None
        error: str | None = None
        try:
            async with asyncio.timeout(timeout):
                status = await self._exchange(url, body, headers)
        except UnsafeAddress as refused:
            error = f"refused: {refused}"
        except (TimeoutError, httpcore.TimeoutException):
            error = f"timed out after {timeout:g} s"
        except (
            httpcore.NetworkError,
            httpcore.ProtocolError,
            httpcore.UnsupportedProtocol,
            httpx.InvalidURL,
            OSError,
            ValueError,
        ) as failed:
            error = f"connection failed: {_reason(failed)}"
        if error is None and not 200 <= (status or 0) < 300:
            error = f"receiver answered HTTP {status}"
        return AttemptResult(
            status_code=status, duration_ms=round((time.perf_counter() - began) * 1000), error=error
        )

    async def _exchange(self, url: str, body: bytes, headers: Mapping[str, str]) -> int:
        """Send the request, read at most :data:`MAX_RESPONSE_BYTES` of the answer; its status.
        A connection goes back to the pool only when its answer was read to the end."""
        request = httpx.Request("POST", url, headers=headers, content=body)
        response = await self._pool.handle_async_request(
            httpcore.Request(
                method=request.method,
                url=httpcore.URL(
                    scheme=request.url.raw_scheme,
                    host=request.url.raw_host,
                    port=request.url.port,
                    target=request.url.raw_path,
                ),
                headers=request.headers.raw,
                content=body,
            )
        )
        try:
            read = 0
            async for part in response.aiter_stream():
                read += len(part)
                if read > MAX_RESPONSE_BYTES:
                    break  # not worth keeping: the connection is closed
        finally:
            await response.aclose()
        return response.status


def _reason(error: BaseException) -> str:
    """Why a call failed, in a line: the system's words for the first OS error behind it."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, OSError) and isinstance(cause.errno, int) and cause.errno > 0:
            return os.strerror(cause.errno)
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror[:300]
        cause = cause.__cause__
    return (str(error) or _WITHOUT_WORDS.get(type(error), type(error).__name__))[:300]


_WITHOUT_WORDS: dict[type[BaseException], str] = {
    httpcore.ConnectError: "the connection broke during the TLS handshake",
    httpcore.ReadError: "the connection broke while reading the answer",
    httpcore.WriteError: "the connection broke while sending the request",
}
"""What httpcore's errors without a message of their own mean."""


@lru_cache(maxsize=2)
def transport_for(local_mode: bool) -> Transport:
    """The process's transport: any address in local mode, public addresses only otherwise."""
    return Transport(None if local_mode else is_public_address)
