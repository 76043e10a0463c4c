"""The received-media download pool: a deadline per download, one download at a time per
device, a bounded number of workers, and nothing that holds the process at exit."""

from __future__ import annotations

import threading
import time

import pytest
from waiting import PROMPTLY

from session_host.network.neonize.downloads import DownloadTimeout, MediaDownloads


def test_a_download_returns_its_bytes_and_its_errors() -> None:
    pool = MediaDownloads(workers=2)
    assert pool.fetch("d1", lambda: b"jpeg", deadline=1.0) == b"jpeg"

    def refused() -> bytes:
        raise RuntimeError("media gone")

    with pytest.raises(RuntimeError, match="media gone"):
        pool.fetch("d1", refused, deadline=1.0)


def test_a_download_past_its_deadline_times_out_and_its_worker_ends_on_its_own() -> None:
    # Given a download that blocks until released (a Go call nobody can cancel)
    pool = MediaDownloads(workers=1)
    release = threading.Event()
    ended = threading.Event()

    def stuck() -> bytes:
        release.wait(30)
        ended.set()
        return b""

    # When it is fetched with a short deadline
    started = time.monotonic()
    with pytest.raises(DownloadTimeout):
        pool.fetch("d1", stuck, deadline=0.2)
    # Then the caller got its answer at the deadline, and the worker is a daemon still running
    assert 0.2 <= time.monotonic() - started < PROMPTLY
    workers = [t for t in threading.enumerate() if t.name.startswith("neonize-media")]
    assert workers
    assert all(t.daemon for t in workers)
    assert not ended.is_set()
    release.set()
    assert ended.wait(2)


def test_one_device_with_a_stuck_download_holds_one_worker_not_the_pool() -> None:
    # Given a pool of two workers and a device whose download is stuck past its deadline
    pool = MediaDownloads(workers=2)
    release = threading.Event()
    with pytest.raises(DownloadTimeout):
        pool.fetch("stuck", lambda: release.wait(30) and b"", deadline=0.1)
    calls: list[str] = []

    def again() -> bytes:
        calls.append("stuck")
        return b""

    try:
        # When the same device gets another media while the first still runs
        with pytest.raises(DownloadTimeout):
            pool.fetch("stuck", again, deadline=0.2)
        # Then it waited for its own earlier download and never started a second one
        assert calls == []
        # And another device still downloads at once on the free worker
        started = time.monotonic()
        assert pool.fetch("other", lambda: b"png", deadline=10.0) == b"png"
        assert time.monotonic() - started < PROMPTLY
    finally:
        release.set()


def test_a_download_still_waiting_for_a_worker_at_its_deadline_is_dropped_unstarted() -> None:
    # Given a pool whose only worker is held by another device's stuck download
    pool = MediaDownloads(workers=1)
    release = threading.Event()
    with pytest.raises(DownloadTimeout):
        pool.fetch("d1", lambda: release.wait(10) and b"", deadline=0.1)
    ran = threading.Event()

    def late() -> bytes:
        ran.set()
        return b""

    try:
        # When another device's download cannot get a worker before its deadline
        with pytest.raises(DownloadTimeout):
            pool.fetch("d2", late, deadline=0.2)
    finally:
        release.set()
    # Then it never runs, even once the worker is free, and the device can download again
    assert pool.fetch("d2", lambda: b"ok", deadline=1.0) == b"ok"
    assert not ran.is_set()
