"""One uvicorn server for every API function's routes, with the specification's server limits.

Read timeout 60 s, read-header timeout 60 s, write timeout 120 s, idle timeout 65 s, and
1 MB of request headers. uvicorn has the idle timeout and the header size; the header
timeout is added to its h11 protocol, and the read/write deadlines by an ASGI wrapper.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from gateway.errors import ApiError
from gateway.failures.codes import ErrorCode

READ_TIMEOUT = 60.0
READ_HEADER_TIMEOUT = 60.0
WRITE_TIMEOUT = 120.0
IDLE_TIMEOUT = 65
MAX_HEADER_BYTES = 1024 * 1024


_HEADERS_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: 88\r\n\r\n"
    b'{"success":false,"error":"request headers exceed 1 MB","error_code":"HEADERS_TOO_LARGE"}'
)


class HeaderTimeoutH11Protocol(H11Protocol):
    """Closes a connection whose request headers do not arrive within the read-header timeout,
    and refuses more than 1 MB of headers."""

    header_timeout = READ_HEADER_TIMEOUT
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    _header_bytes = 0

    def data_received(self, data: bytes) -> None:
        if self._waiting_for_request():
            self._header_bytes += len(data)
            if self._header_timer is None:
                self._arm_header_timer()
        super().data_received(data)
        if not self._waiting_for_request():
            self._cancel_header_timer()
            self._header_bytes = 0
        elif self._header_bytes > MAX_HEADER_BYTES and not self.transport.is_closing():
            self.transport.write(_HEADERS_TOO_LARGE)
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def _waiting_for_request(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm_header_timer(self) -> None:
        self._header_timer = self.loop.call_later(self.header_timeout, self._header_timed_out)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self._waiting_for_request() and not self.transport.is_closing():
            self.transport.close()


class DeadlinesMiddleware:
    """Read deadline for the request body, write deadline for the whole response."""

    def __init__(
        self, app: ASGIApp, *, read_timeout: float = READ_TIMEOUT, write_timeout: float = WRITE_TIMEOUT
    ):
        self.app = app
        self.read_timeout = read_timeout
        self.write_timeout = write_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if sum(len(name) + len(value) for name, value in scope["headers"]) > MAX_HEADER_BYTES:
            error = ApiError(431, ErrorCode.HEADERS_TOO_LARGE, "request headers exceed 1 MB")
            await error.response()(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        read_deadline = loop.time() + self.read_timeout
        started = False

        async def timed_receive() -> Message:
            remaining = max(read_deadline - loop.time(), 0.0)
            try:
                return await asyncio.wait_for(receive(), remaining)
            except TimeoutError:
                raise ApiError(408, ErrorCode.REQUEST_TIMEOUT, "request body not received in time") from None

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await asyncio.wait_for(self.app(scope, timed_receive, tracking_send), self.write_timeout)
        except TimeoutError:
            if not started:
                error = ApiError(
                    504, ErrorCode.GATEWAY_TIMEOUT, "the response was not ready within the write timeout"
                )
                await error.response()(scope, receive, send)


class PortUnavailable(Exception):
    """The API's port cannot be bound; the message says why and what to do, in one line."""


def ensure_port_free(port: int, host: str = "127.0.0.1") -> None:
    """Refuse a port the API server could not bind, before anything starts.

    Found later, uvicorn would log its error inside its thread and the stack would end in a
    traceback, with moto and a session host already running. The probe binds as uvicorn binds
    (``SO_REUSEADDR``), so a port left in TIME_WAIT by the previous run is not refused.
    """
    if not 0 <= port < 65536:
        raise PortUnavailable(f"GATEWAY_PORT={port} is not a TCP port: use a number from 0 (any) to 65535")
    if port == 0:
        return  # any free port, chosen when the server starts
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise PortUnavailable(
                    f"port {port} is in use: stop the other process or set GATEWAY_PORT "
                    f"(e.g. GATEWAY_PORT={_next_free_port(host, port)} make run)"
                ) from None
            raise PortUnavailable(
                f"port {port} cannot be used ({error.strerror}): set GATEWAY_PORT to another port"
            ) from None


def _next_free_port(host: str, taken: int) -> int:
    """A free port near the one asked for, to suggest (any free port past 65535)."""
    for candidate in range(taken + 1, min(taken + 100, 65536)):
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, candidate))
            except OSError:
                continue
            return candidate
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def make_server(app: Any, port: int) -> uvicorn.Server:
    config = uvicorn.Config(
        DeadlinesMiddleware(app),
        host="127.0.0.1",
        port=port,
        http=HeaderTimeoutH11Protocol,
        timeout_keep_alive=IDLE_TIMEOUT,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        log_level="warning",
        access_log=False,
        lifespan="off",
        server_header=False,
    )
    return uvicorn.Server(config)
