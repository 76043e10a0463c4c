"""Connections to receivers: where they may go, and the idle ones kept alive.

:class:`GuardedBackend` is a network backend of httpcore's public interface. Outside local mode
every address the receiver's name resolves to must be public
(:func:`gateway.webhooks.addresses.is_public_address`) before anything is opened: so a name
re-pointed at an internal address (DNS rebinding) is refused, and the refusal is the same
whether an internal port is open, closed or filtered (no port-scan oracle). The connection is
made to the checked address itself, and its peer is checked again once connected. Names are
resolved on threads of their own, one lookup at a time per (host, port) shared by every attempt
waiting for it: a name whose resolver hangs holds one thread, not one per event.

:class:`Kept` holds the idle keep-alive connections (httpcore's ``AsyncHTTPConnection``, made
through the backend) by origin, taken and given back in constant time. httpcore's own
``AsyncConnectionPool`` scans every connection for every request it places, which with many
attempts at once costs several times the CPU per POST (bench/README.md, "Figures the code's
choices rest on").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ipaddress
import os
import socket
import ssl
from collections import OrderedDict
from collections.abc import Callable, Iterable

import httpcore

from gateway.webhooks.delivery.constants import IDLE_CONNECTIONS_KEPT, KEEPALIVE_SECONDS, RESOLVER_THREADS

AddressCheck = Callable[[str], bool]


class UnsafeAddress(Exception):
    """The receiver's name resolves to an address the gateway may not call. Not an ``OSError``,
    so it is told apart from a connection that failed."""


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
                failure = httpcore.ConnectError(reason(failed))  # the pool drops the cause
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


class Kept:
    """Connections by origin: an idle one the receiver did not close and whose keep-alive is not
    over (:data:`KEEPALIVE_SECONDS`), the most recently used first, or a new one. At most
    :data:`IDLE_CONNECTIONS_KEPT` idle ones in all, the least recently used origins' closed
    first. A connection serves one attempt at a time; everything here runs on one event loop."""

    def __init__(self, backend: httpcore.AsyncNetworkBackend, ssl_context: ssl.SSLContext) -> None:
        self._backend = backend
        self._ssl_context = ssl_context
        self._idle: OrderedDict[_Key, list[httpcore.AsyncHTTPConnection]] = OrderedDict()
        self._count = 0

    async def take(self, origin: httpcore.Origin) -> httpcore.AsyncHTTPConnection:
        key = _key(origin)
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            self._count -= 1
            if not idle:
                del self._idle[key]
            if connection.is_available() and not connection.has_expired():
                return connection
            await connection.aclose()
            idle = self._idle.get(key)
        return httpcore.AsyncHTTPConnection(
            origin=origin,
            ssl_context=self._ssl_context,
            keepalive_expiry=KEEPALIVE_SECONDS,
            network_backend=self._backend,
        )

    async def give_back(self, origin: httpcore.Origin, connection: httpcore.AsyncHTTPConnection) -> None:
        """Keep ``connection`` if its last answer was read to the end, else close it (whether
        the receiver closed it meanwhile is checked when it is taken)."""
        if not connection.is_idle():
            await connection.aclose()
            return
        key = _key(origin)
        self._idle.setdefault(key, []).append(connection)
        self._idle.move_to_end(key)
        self._count += 1
        while self._count > IDLE_CONNECTIONS_KEPT:
            oldest_key, oldest = next(iter(self._idle.items()))
            self._count -= 1
            closing = oldest.pop(0)
            if not oldest:
                del self._idle[oldest_key]
            await closing.aclose()


_Key = tuple[bytes, bytes, int]  # (scheme, host, port): httpcore's Origin is not hashable


def _key(origin: httpcore.Origin) -> _Key:
    return origin.scheme, origin.host, origin.port


def reason(error: BaseException) -> str:
    """Why a call failed, in a line: the system's words for the first OS error behind it."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ssl.SSLError):  # its errno is OpenSSL's, not the system's
            return str(cause)[:300]
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
