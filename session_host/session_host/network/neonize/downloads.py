"""Received-media downloads of every neonize session, off the sessions' event threads.

``client.download_any`` blocks until whatsmeow has the whole file, with no deadline of its
own (``context.Background()`` in Go: a minute and more on a slow or silent network), and a
Go call cannot be cancelled from Python. So a download never runs on the thread that
delivers a session's events: :class:`MediaDownloads` runs it on a small pool of worker
threads shared by the process, and the event waits for it at most ``deadline`` seconds.
Past that the event goes on without the bytes (``media.error: timeout``); the call keeps its
worker until the library returns, then the worker is free again.

Bounds, so stuck downloads cannot pile up:

- at most ``workers`` downloads run at once in the process (the pool's size); a download
  waiting for a worker counts its wait against its deadline and is dropped, never started,
  if the deadline passes first;
- at most one download per device runs at a time: a device whose earlier download is still
  running (past its deadline, say) waits for it within the new download's deadline, so one
  device with a stuck network holds one worker, never the whole pool.

The workers are daemon threads of this module, not a ``ThreadPoolExecutor``'s: Python joins
an executor's threads at exit, so one download stuck in Go would hold a stopping host.

The deadline is the caller's (``NeonizeTimings.media_deadline``, 60 s by default:
``gateway.media.limits.RECEIVED_MEDIA_TIMEOUT_SECONDS``).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout

MEDIA_DOWNLOAD_WORKERS = 8
"""Downloads running at once in one process (each a thread blocked in the Go library)."""


class DownloadTimeout(Exception):
    """The download did not end within its deadline (it may still be running)."""


class MediaDownloads:
    """A bounded pool for blocking downloads, one at a time per device (see the module)."""

    def __init__(self, workers: int = MEDIA_DOWNLOAD_WORKERS) -> None:
        self._size = workers
        self._jobs: queue.SimpleQueue[tuple[Future[bytes], Callable[[], bytes]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._workers: list[threading.Thread] = []
        self._slots: dict[str, threading.Semaphore] = {}

    def fetch(self, device_id: str, download: Callable[[], bytes], deadline: float) -> bytes:
        """``download()``'s bytes, run on a worker; :class:`DownloadTimeout` after ``deadline`` s.

        The exceptions of ``download`` are raised here. Call it from the session's event
        thread: it waits, so the device's later events stay behind this one.
        """
        ends = time.monotonic() + deadline
        slot = self._slot(device_id)
        if not slot.acquire(timeout=max(deadline, 0.0)):
            raise DownloadTimeout(f"an earlier download of the device is still running after {deadline:g} s")

        def run() -> bytes:
            try:
                return download()
            finally:
                slot.release()

        future: Future[bytes] = Future()
        self._start_workers()
        self._jobs.put((future, run))
        try:
            return future.result(timeout=max(ends - time.monotonic(), 0.0))
        except (FutureTimeout, CancelledError) as exc:
            if future.cancel():  # still waiting for a worker: it never runs, free its slot here
                slot.release()
            raise DownloadTimeout(f"the download did not end within {deadline:g} s") from exc

    def _start_workers(self) -> None:
        with self._lock:
            while len(self._workers) < self._size:
                worker = threading.Thread(
                    target=self._work, name=f"neonize-media-{len(self._workers)}", daemon=True
                )
                worker.start()
                self._workers.append(worker)

    def _work(self) -> None:
        while True:
            future, job = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue  # dropped past its deadline before a worker was free
            try:
                future.set_result(job())
            except BaseException as exc:  # handed to the waiting caller
                future.set_exception(exc)

    def _slot(self, device_id: str) -> threading.Semaphore:
        with self._lock:
            slot = self._slots.get(device_id)
            if slot is None:
                slot = self._slots[device_id] = threading.Semaphore(1)
            return slot


DOWNLOADS = MediaDownloads()
"""The pool every neonize session of the process downloads received media on."""
