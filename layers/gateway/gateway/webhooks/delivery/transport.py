"""The receiver call: one HTTP POST under one deadline.

The request is built by httpx (URL, IDNA, ``Host``, ``Content-Length``) and sent by httpcore
(HTTP/1.1 over h11, the engine of httpx's own transport) on a connection of
:class:`~gateway.webhooks.delivery.connections.Kept`, made through the address-checking
network backend (``connections.py``). (httpx's ``AsyncHTTPTransport`` takes no network
backend, and its ``AsyncClient`` would keep one receiver's cookies for the next.)

**One deadline.** Every attempt runs as a task of one event loop on a thread of its own
(:func:`delivery_loop`), inside ``asyncio.timeout(timeout)``: name resolution, connect, TLS,
the write and the answer are all cut when the attempt's time is up, whatever the receiver
does (a handshake trickled byte by byte, a name whose resolver hangs, addresses that never
answer). Concurrent attempts open connections of their own (no pool limit to queue behind), so
one receiver's slowness is on no other attempt's path; only a configuration's own attempts
wait for each other, past :data:`ATTEMPTS_PER_CONFIGURATION` at once (:class:`Lanes`, below).

Redirects are not followed (a 3xx is a failed attempt); proxies and ``.netrc`` from the
environment play no part; at most :data:`MAX_RESPONSE_BYTES` of an answer are read.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import ssl
import threading
import time
from collections.abc import AsyncIterator, Hashable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import lru_cache

import httpcore
import httpx

from gateway.webhooks.addresses import is_public_address
from gateway.webhooks.delivery.connections import AddressCheck, GuardedBackend, Kept, UnsafeAddress, reason
from gateway.webhooks.delivery.constants import (
    ATTEMPTS_PER_CONFIGURATION,
    DELIVERY_LOOP_THREAD,
    MAX_RESPONSE_BYTES,
)


class NotStarted(Exception):
    """The attempt could not start by its deadline: its configuration's other attempts held
    every slot until then. Nothing was sent."""


@dataclass
class _Lane:
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(ATTEMPTS_PER_CONFIGURATION))
    users: int = 0  # attempts holding or waiting for a slot: the lane is dropped at 0


class Lanes:
    """A lane of slots per configuration, made when first used and dropped when unused.

    How many attempts of one configuration run at once in a process: at most
    :data:`ATTEMPTS_PER_CONFIGURATION`, what one invocation of a full batch makes.

    In Lambda a sandbox runs one invocation at a time, so the bound never binds there. The local
    worker runs many invocations in one process: a burst for one receiver (a history sync of
    thousands of messages) would otherwise reach it as thousands of connections at once. An
    attempt waits for its configuration's own attempts only, never for another configuration's,
    and gives up (:class:`NotStarted`) if it could not start by the time its invocation allows.
    Everything here runs on the transport's event loop.
    """

    def __init__(self) -> None:
        self._lanes: dict[Hashable, _Lane] = {}

    @asynccontextmanager
    async def slot(self, lane: Hashable, start_by: float) -> AsyncIterator[None]:
        """Hold one of the lane's slots, waiting until ``start_by`` (``time.monotonic()``) at
        most; raises :class:`NotStarted` when none came free by then."""
        entry = self._lanes.get(lane)
        if entry is None:
            entry = self._lanes[lane] = _Lane()
        entry.users += 1
        try:
            try:
                async with asyncio.timeout(max(0.0, start_by - time.monotonic())):
                    await entry.slots.acquire()
            except TimeoutError as late:
                raise NotStarted from late
            try:
                yield
            finally:
                entry.slots.release()
        finally:
            entry.users -= 1
            if not entry.users:
                del self._lanes[lane]


@dataclass(frozen=True)
class AttemptResult:
    """What one POST gave: the status (when the receiver answered) or why it failed."""

    status_code: int | None
    duration_ms: int
    error: str | None
    timed_out: bool = False

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


class Transport:
    """POSTs to receivers, each under its own deadline, on :func:`delivery_loop`.

    ``address_allowed`` is the address check; ``None`` (local mode) allows any address.
    """

    def __init__(
        self, address_allowed: AddressCheck | None, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        context = ssl_context or ssl.create_default_context()  # certificate and name verified
        self._kept = Kept(GuardedBackend(address_allowed), context)
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
        (:class:`Lanes`, below) until ``start_by`` (``time.monotonic()``) at most: the future then raises
        :class:`NotStarted`, nothing sent.
        """
        if lane is None:
            attempt = self._attempt(url, body, headers, timeout)
            return asyncio.run_coroutine_threadsafe(attempt, delivery_loop())
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
        timed_out = False
        try:
            async with asyncio.timeout(timeout):
                status = await self._exchange(url, body, headers)
        except UnsafeAddress as refused:
            error = f"refused: {refused}"
        except (TimeoutError, httpcore.TimeoutException):
            error = f"timed out after {timeout:g} s"
            timed_out = True
        except (
            httpcore.NetworkError,
            httpcore.ProtocolError,
            httpcore.UnsupportedProtocol,
            httpcore.ConnectionNotAvailable,
            httpx.InvalidURL,
            OSError,
            ValueError,
        ) as failed:
            error = f"connection failed: {reason(failed)}"
        if error is None and not 200 <= (status or 0) < 300:
            error = f"receiver answered HTTP {status}"
        return AttemptResult(
            status_code=status,
            duration_ms=round((time.perf_counter() - began) * 1000),
            error=error,
            timed_out=timed_out,
        )

    async def _exchange(self, url: str, body: bytes, headers: Mapping[str, str]) -> int:
        """Send the request, read at most :data:`MAX_RESPONSE_BYTES` of the answer; its status.
        The connection is kept only when its answer was read to the end."""
        route = _route(url)
        request = httpcore.Request(
            method=b"POST",
            url=route.url,
            headers=[*route.headers, (b"Content-Length", b"%d" % len(body)), *httpx.Headers(headers).raw],
            content=body,
        )
        connection = await self._kept.take(route.origin)
        try:
            response = await connection.handle_async_request(request)
            try:
                read = 0
                async for part in response.aiter_stream():
                    read += len(part)
                    if read > MAX_RESPONSE_BYTES:
                        break  # not worth keeping: the connection is closed
            finally:
                await response.aclose()
        except BaseException:
            await connection.aclose()
            raise
        await self._kept.give_back(route.origin, connection)
        return response.status


@dataclass(frozen=True)
class _Route:
    origin: httpcore.Origin
    url: httpcore.URL
    headers: tuple[tuple[bytes, bytes], ...]  # Host, as httpx writes it


@lru_cache(maxsize=1024)
def _route(url: str) -> _Route:
    """Where a URL's requests go, worked out by httpx once per URL (a batch sends many events to
    each): the origin, the target, the ``Host`` header (IDNA, IPv6 brackets, default port left
    out). Raises ``httpx.InvalidURL``."""
    request = httpx.Request("POST", url)
    parsed = request.url
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    origin = httpcore.Origin(parsed.raw_scheme, parsed.raw_host, port)
    target = httpcore.URL(scheme=parsed.raw_scheme, host=parsed.raw_host, port=port, target=parsed.raw_path)
    return _Route(origin, target, ((b"Host", request.headers["Host"].encode("ascii")),))


@lru_cache(maxsize=2)
def transport_for(local_mode: bool) -> Transport:
    """The process's transport: any address in local mode, public addresses only otherwise."""
    return Transport(None if local_mode else is_public_address)
