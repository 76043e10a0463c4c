"""Receivers that misbehave on purpose, on loopback, for the tests that attack webhook delivery.

- :func:`trickling_tls`: accepts, reads the ClientHello, then announces a 16 KiB handshake record
  and sends it one byte every 0.2 s: no read ever waits long, the handshake never ends.
- :func:`hanging`: accepts and reads the request, never answers.
- :func:`filtered`: a port whose connections never complete (its listen queue is full and the
  kernel drops further SYNs), as behind a firewall that drops packets; on several addresses.
- :func:`closed_port`: a port nothing listens on (connections refused at once).

Each listener counts the connections it accepted, so a test can tell that nothing reached it.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

TLS_RECORD_HEADER = b"\x16\x03\x03\x40\x00"  # a handshake record of 16,384 bytes follows
TRICKLE_SECONDS = 0.2


@dataclass
class Listener:
    """A listening socket on 127.0.0.1 whose connections are served by ``serve``."""

    port: int
    accepted: int = 0
    _connections: list[socket.socket] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, connection: socket.socket) -> None:
        with self._lock:
            self.accepted += 1
            self._connections.append(connection)

    def close_all(self) -> None:
        with self._lock:
            for connection in self._connections:
                with contextlib.suppress(OSError):
                    connection.close()


Serve = Callable[[socket.socket, threading.Event], None]


@contextlib.contextmanager
def _listening(serve: Serve) -> Iterator[Listener]:
    server = socket.create_server(("127.0.0.1", 0))
    listener = Listener(server.getsockname()[1])
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                return
            listener.add(connection)
            threading.Thread(target=serve, args=(connection, stop), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener
    finally:
        stop.set()
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept(), which close() does not
        server.close()
        listener.close_all()
        thread.join(timeout=5)


def _trickle(connection: socket.socket, stop: threading.Event) -> None:
    with contextlib.suppress(OSError):
        connection.recv(65536)  # the ClientHello
        connection.sendall(TLS_RECORD_HEADER)
        while not stop.wait(TRICKLE_SECONDS):
            connection.sendall(b"\x02")


def _hang(connection: socket.socket, stop: threading.Event) -> None:
    with contextlib.suppress(OSError):
        connection.settimeout(0.2)
        while not stop.is_set():
            try:
                if not connection.recv(65536):
                    return
            except TimeoutError:
                continue


@contextlib.contextmanager
def trickling_tls() -> Iterator[Listener]:
    with _listening(_trickle) as listener:
        yield listener


@contextlib.contextmanager
def hanging() -> Iterator[Listener]:
    with _listening(_hang) as listener:
        yield listener


@contextlib.contextmanager
def filtered(hosts: tuple[str, ...] = ("127.0.0.1",)) -> Iterator[int]:
    """A port, the same on each of ``hosts`` (loopback addresses), whose new connections hang
    in SYN-SENT: on each, a listener that never accepts, its queue filled by connections of its
    own."""
    listeners: list[socket.socket] = []
    fillers: list[socket.socket] = []
    try:
        port = 0
        for host in hosts:
            server = socket.socket()
            listeners.append(server)
            server.bind((host, port))
            server.listen(0)
            port = server.getsockname()[1]
            while True:  # Linux completes handshakes until the accept queue is full, then drops SYNs
                filler = socket.socket()
                filler.settimeout(0.1)  # a connect on loopback completes at once, or never
                fillers.append(filler)
                try:
                    filler.connect((host, port))
                except TimeoutError:
                    break  # a connect that does not complete: the port is "filtered"
        yield port
    finally:
        for sock in fillers + listeners:
            sock.close()


def closed_port() -> int:
    """A port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
