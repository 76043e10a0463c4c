"""Fixtures of the real-library tier: the neonize adapter with the real neonize 0.5.2 loaded,
offline, its network played by a local proxy (``local_stack.played_network``).

The proxy is handed to neonize per connect (``NeonizePort(proxy_url=...)``), never through
``HTTPS_PROXY``: the Go side reads the environment once, when the library loads, so a proxy
set in ``os.environ`` by a fixture would not reach it, and setting it process-wide would also
route the other test folders' HTTP. Nothing here touches the environment.

- ``played_network`` (session): the proxy server, started once.
- ``network``: the same server, refusing at the start of each test; at its end, connections
  still held open (silent, slow) are closed, so dials left hanging fail at once and their
  runs end instead of waiting out whatsmeow's 60 s dial deadline.
- ``neonize_sessions``: a factory of sessions on one :class:`NeonizePort` (the process-wide
  gate and client registry, as in production) with short timings, a fresh data directory
  and a ``RecordingSink`` per session; every session is closed at the end.

Tests drive the sessions inside ``asyncio.run`` (see :func:`run`) and wait on conditions
with deadlines (``session_support.until``), never on fixed sleeps.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from session_support import REAL_TIMINGS, SessionFactory

from local_stack.played_network import PlayedNetwork
from session_host.network.neonize import NeonizePort


@pytest.fixture(scope="session")
def played_network() -> Iterator[PlayedNetwork]:
    with PlayedNetwork("refuse") as network:
        yield network


@pytest.fixture
def network(played_network: PlayedNetwork) -> Iterator[PlayedNetwork]:
    played_network.play("refuse")
    yield played_network
    played_network.play("refuse")  # held dials fail now: their runs end within moments


@pytest.fixture
def neonize_sessions(network: PlayedNetwork, tmp_path: Path) -> Iterator[SessionFactory]:
    port = NeonizePort(proxy_url=network.url, timings=REAL_TIMINGS)
    factory = SessionFactory(port, tmp_path / "sessions")
    yield factory
    factory.close_all()
