"""A played network: a local TCP server that whatsmeow dials as its HTTPS proxy.

whatsmeow reaches the network through ``http.ProxyFromEnvironment``; with
``HTTPS_PROXY=http://127.0.0.1:<port>`` every dial of every neonize client in the process
lands here, and :attr:`PlayedNetwork.mode` decides what "the network" does with it:

- ``refuse``: the connection is closed at once (the dial fails at once);
- ``silent``: accepted and never answered (whatsmeow's dial times out after about a minute);
- ``reset``: accepted, then reset (RST);
- ``slow``: the proxy's answer trickles in, one byte per ``trickle_seconds``.

Each dial is counted (:attr:`dials`, :meth:`wait_dials`) with the time it arrived, so tests
know an attempt reached the network without sleeping for it. Silent and slow connections
are kept open until the mode changes or the network stops.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from typing import Literal

Mode = Literal["refuse", "silent", "reset", "slow"]
MODES: tuple[Mode, ...] = ("refuse", "silent", "reset", "slow")


class PlayedNetwork:
    """The proxy server (see the module docstring); start it, then set the mode per test."""

    def __init__(self, mode: Mode = "refuse", *, trickle_seconds: float = 1.0) -> None:
        self.mode: Mode = mode
        self.trickle_seconds = trickle_seconds
        self._lock = threading.Condition()
        self._dial_times: list[float] = []
        self._held: list[socket.socket] = []
        self._stopped = threading.Event()
        self._server = socket.create_server(("127.0.0.1", 0), backlog=512)
        self.port: int = self._server.getsockname()[1]
        self._thread = threading.Thread(target=self._accept_loop, name="played-network", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> PlayedNetwork:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        with contextlib.suppress(OSError):
            self._server.close()
        self.release()

    def play(self, mode: Mode) -> None:
        """Switch what the network does; connections held by the previous mode are closed."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.mode = mode
        self.release()

    def release(self) -> None:
        """Close every connection held open (silent or slow)."""
        with self._lock:
            held, self._held = self._held, []
        for conn in held:
            with contextlib.suppress(OSError):
                conn.close()

    @property
    def dials(self) -> int:
        with self._lock:
            return len(self._dial_times)

    @property
    def dial_times(self) -> list[float]:
        """``time.monotonic()`` of every dial that reached the network, in order."""
        with self._lock:
            return list(self._dial_times)

    @property
    def held(self) -> int:
        with self._lock:
            return len(self._held)

    def wait_dials(self, count: int, timeout: float = 10.0) -> None:
        """Block until ``count`` dials in all have reached the network."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self._dial_times) >= count, timeout):
                raise AssertionError(f"{len(self._dial_times)} dials reached the network, expected {count}")

    # --- the server ---------------------------------------------------------------------

    def _accept_loop(self) -> None:
        while not self._stopped.is_set():
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                self._dial_times.append(time.monotonic())
                self._lock.notify_all()
            mode = self.mode
            if mode == "refuse":
                conn.close()
            elif mode == "reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.close()
            else:
                with self._lock:
                    self._held.append(conn)
                if mode == "slow":
                    threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        answer = b"HTTP/1.1 200 Connection established\r\n\r\n"
        for byte in answer:
            if self._stopped.wait(self.trickle_seconds):
                return
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                return
