"""A played network for the real neonize library: a loopback TCP server used as its HTTPS proxy.

whatsmeow dials ``wss://web.whatsapp.com`` through Go's ``http.ProxyFromEnvironment``: with
``HTTPS_PROXY=http://127.0.0.1:<port>`` in the environment of the process *when it starts*
(the Go runtime of a shared library reads the process's initial environment, so setting
``os.environ`` later does nothing) every dial becomes a TCP connection to this server, which
decides what the network does:

* ``silent``: accept and never answer. The dial hangs until whatsmeow gives up (~60 s), then
  whatsmeow closes its end and the server closes its own.
* ``refuse``: accept and close at once: the dial fails at once (``unexpected EOF``).

Only loopback, bounded in the connections it holds (beyond ``max_held`` a silent network
closes new ones as a refusing one does, and counts them) and in time: it stops by itself
after ``lifetime`` seconds, closing everything.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time

MODES = ("silent", "refuse")


class PlayedNetwork:
    """Start with :meth:`start`; :attr:`port` is the proxy's port; :meth:`stop` ends it early."""

    def __init__(self, mode: str, *, lifetime: float, max_held: int) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        self.mode = mode
        self._lifetime = lifetime
        self._max_held = max_held
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=1024)
        self._listener.setblocking(False)
        self.port: int = self._listener.getsockname()[1]
        self._selector = selectors.DefaultSelector()
        self._held: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._dials: list[float] = []  # time.time() of every accepted connection
        self.overflow = 0  # silent only: connections closed because max_held were held
        self.peak_held = 0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"played-{mode}", daemon=True)

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> PlayedNetwork:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)

    def dials_between(self, start: float, end: float) -> int:
        """Connections accepted between two ``time.time()`` readings."""
        with self._lock:
            return sum(1 for at in self._dials if start <= at < end)

    def nth_dial_after(self, start: float, n: int) -> float | None:
        """Seconds from ``start`` (a ``time.time()``) to the ``n``-th connection accepted after
        it; None if fewer came."""
        with self._lock:
            after = sorted(at for at in self._dials if at >= start)
        return after[n - 1] - start if n >= 1 and len(after) >= n else None

    @property
    def dials(self) -> int:
        with self._lock:
            return len(self._dials)

    def _run(self) -> None:
        deadline = time.monotonic() + self._lifetime
        self._selector.register(self._listener, selectors.EVENT_READ)
        try:
            while not self._stopped.is_set() and time.monotonic() < deadline:
                for key, _ in self._selector.select(timeout=0.5):
                    if key.fileobj is self._listener:
                        self._accept()
                    else:
                        self._drain(key.fileobj)  # type: ignore[arg-type]
        finally:
            for held in list(self._held):
                self._close(held)
            self._selector.close()
            self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of descriptors: the dial sees a reset, as a refusing network
                return
            with self._lock:
                self._dials.append(time.time())
            if self.mode == "refuse" or len(self._held) >= self._max_held:
                if self.mode == "silent":
                    self.overflow += 1
                connection.close()
                continue
            connection.setblocking(False)
            self._held.add(connection)
            self.peak_held = max(self.peak_held, len(self._held))
            self._selector.register(connection, selectors.EVENT_READ)

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
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(connection)
        connection.close()
