"""A played network: a loopback TCP server that the real neonize library dials as its HTTPS proxy.

whatsmeow dials through Go's ``http.ProxyFromEnvironment``, and the Go side reads
``HTTPS_PROXY`` once, at process start: a process started with
``HTTPS_PROXY=<PlayedNetwork.url>`` (or a ``NeonizePort(proxy_url=...)``) dials this server,
whose :attr:`~PlayedNetwork.mode` decides what the network does with each connection:

- ``refuse``: closed at once (the dial fails at once);
- ``silent``: accepted and never answered (whatsmeow gives up after ~60 s);
- ``reset``: closed with a reset (RST);
- ``slow``: the proxy's answer trickles in, one byte per ``trickle_seconds``.

Every dial is counted with its ``time.time()``. At most ``max_held`` connections are held
(silent, slow); beyond that a new one is closed as a refusing network does, and counted in
:attr:`~PlayedNetwork.overflow`. With a ``lifetime`` the server stops by itself after that many
seconds. Held connections close when the client closes, the mode changes, or the server stops.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import struct
import threading
import time
from typing import Literal

Mode = Literal["refuse", "silent", "reset", "slow"]
MODES: tuple[Mode, ...] = ("refuse", "silent", "reset", "slow")
PROXY_ANSWER = b"HTTP/1.1 200 Connection established\r\n\r\n"


class PlayedNetwork:
    """The proxy server: :meth:`start` it (or use it as a context manager), :meth:`play` a mode."""

    def __init__(
        self,
        mode: Mode = "refuse",
        *,
        max_held: int = 1024,
        lifetime: float | None = None,
        trickle_seconds: float = 1.0,
    ) -> None:
        self.mode: Mode = _checked(mode)
        self.trickle_seconds = trickle_seconds
        self.overflow = 0
        self.peak_held = 0
        self._max_held = max_held
        self._lifetime = lifetime
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=1024)
        self._listener.setblocking(False)
        self.port: int = self._listener.getsockname()[1]
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._wake_writer.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._held: set[socket.socket] = set()
        self._trickling: dict[socket.socket, tuple[int, float]] = {}  # bytes sent, next one due
        self._dialed = threading.Condition()
        self._dial_times: list[float] = []
        self._releases: list[threading.Event] = []
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="played-network", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> PlayedNetwork:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close the server and every connection it holds."""
        self._stopped.set()
        self._wake()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        elif not self._thread.ident:  # never started
            self._close_all()

    def __enter__(self) -> PlayedNetwork:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def play(self, mode: Mode) -> None:
        """Switch what the network does; the connections held by the previous mode are closed."""
        self.mode = _checked(mode)
        self.release()

    def release(self) -> None:
        """Close every connection held open; returns once they are closed."""
        done = threading.Event()
        with self._dialed:
            self._releases.append(done)
        self._wake()
        if self._thread.is_alive():
            done.wait(timeout=5)

    # --- the dials ---------------------------------------------------------------------------

    @property
    def dials(self) -> int:
        with self._dialed:
            return len(self._dial_times)

    @property
    def dial_times(self) -> list[float]:
        """The ``time.time()`` of every dial, in order."""
        with self._dialed:
            return list(self._dial_times)

    def wait_dials(self, count: int, timeout: float = 10.0) -> None:
        """Return once ``count`` dials in all have come; TimeoutError after ``timeout`` seconds."""
        with self._dialed:
            if not self._dialed.wait_for(lambda: len(self._dial_times) >= count, timeout):
                raise TimeoutError(f"{len(self._dial_times)} dials reached the network, expected {count}")

    def dials_between(self, start: float, end: float) -> int:
        """Dials between two ``time.time()`` readings."""
        return sum(1 for at in self.dial_times if start <= at < end)

    def nth_dial_after(self, start: float, n: int) -> float | None:
        """Seconds from ``start`` (a ``time.time()``) to the ``n``-th dial after it; None if
        fewer came."""
        after = [at for at in self.dial_times if at >= start]
        return after[n - 1] - start if 1 <= n <= len(after) else None

    # --- the server (its own thread owns every socket) -----------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_writer.send(b"\0")

    def _run(self) -> None:
        deadline = None if self._lifetime is None else time.monotonic() + self._lifetime
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._selector.register(self._wake_reader, selectors.EVENT_READ)
        try:
            while not self._stopped.is_set() and (deadline is None or time.monotonic() < deadline):
                due = min((at for _, at in self._trickling.values()), default=time.monotonic() + 0.5)
                for key, _ in self._selector.select(max(0.0, min(0.5, due - time.monotonic()))):
                    if key.fileobj is self._listener:
                        self._accept()
                    elif key.fileobj is self._wake_reader:
                        self._answer_requests()
                    else:
                        self._drain(key.fileobj)  # type: ignore[arg-type]
                self._trickle()
        finally:
            self._close_all()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:  # none left (or out of descriptors: the dial sees a reset)
                return
            with self._dialed:
                self._dial_times.append(time.time())
                self._dialed.notify_all()
            mode = self.mode
            if mode == "reset":
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            if mode in ("refuse", "reset") or len(self._held) >= self._max_held:
                if mode in ("silent", "slow"):
                    self.overflow += 1
                connection.close()
                continue
            connection.setblocking(False)
            self._held.add(connection)
            self.peak_held = max(self.peak_held, len(self._held))
            if mode == "slow":
                self._trickling[connection] = (0, time.monotonic() + self.trickle_seconds)
            self._selector.register(connection, selectors.EVENT_READ)

    def _answer_requests(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_reader.recv(4096)
        with self._dialed:
            releases, self._releases = self._releases, []
        if releases:
            for connection in list(self._held):
                self._close(connection)
        for done in releases:
            done.set()

    def _trickle(self) -> None:
        """One more byte of the proxy's answer to each slow connection it is due to."""
        now = time.monotonic()
        for connection, (sent, due) in list(self._trickling.items()):
            if due > now:
                continue
            try:
                connection.send(PROXY_ANSWER[sent : sent + 1])
            except OSError:
                self._close(connection)
                continue
            if sent + 1 < len(PROXY_ANSWER):
                self._trickling[connection] = (sent + 1, due + self.trickle_seconds)
            else:
                del self._trickling[connection]  # answered: held, silent from now on

    def _drain(self, connection: socket.socket) -> None:
        """Read and drop what the client sent (its CONNECT request); close on its EOF."""
        try:
            if connection.recv(65536):
                return
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pass
        self._close(connection)

    def _close(self, connection: socket.socket) -> None:
        self._held.discard(connection)
        self._trickling.pop(connection, None)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(connection)
        connection.close()

    def _close_all(self) -> None:
        for connection in list(self._held):
            self._close(connection)
        self._selector.close()
        for sock in (self._listener, self._wake_reader, self._wake_writer):
            sock.close()
        with self._dialed:
            releases, self._releases = self._releases, []
        for done in releases:
            done.set()


def _checked(mode: str) -> Mode:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    return mode
