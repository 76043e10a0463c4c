"""A proxy per device on the real library: the device's proxy (``DeviceSession.use_proxy``,
which the session host sets from the device record before each attempt) is what whatsmeow
dials through at the next connect, for that device only; without one, the device does not
dial that proxy.

The port here has no proxy of its own (unlike ``neonize_sessions``), and nothing sets
``HTTPS_PROXY``: a dial that does not go through the played network fails at once on these
machines (no name resolution), so the played network's dial count tells which way each went.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from session_support import REAL_TIMINGS, SessionFactory, run, until

from local_stack.played_network import PlayedNetwork
from session_host.network.neonize import NeonizePort


@pytest.fixture
def own_network() -> Iterator[PlayedNetwork]:
    """A played network only this test's proxy names: the tier's shared one may still see dials
    of earlier tests' sessions, which would be counted as this device's."""
    with PlayedNetwork("refuse") as network:
        yield network


@pytest.fixture
def direct_sessions(tmp_path: Path) -> Iterator[SessionFactory]:
    """Sessions on a port without a proxy: each device dials the way its own setting says."""
    factory = SessionFactory(NeonizePort(timings=REAL_TIMINGS), tmp_path / "sessions")
    yield factory
    factory.close_all()


def test_a_device_dials_through_its_own_proxy_from_its_next_connect(
    direct_sessions: SessionFactory, own_network: PlayedNetwork
) -> None:
    network = own_network
    # Given two devices of one process; only the first has a proxy (the played network)
    proxied, proxied_sink = direct_sessions.open()
    direct, direct_sink = direct_sessions.open()
    proxied.use_proxy(f"http://user:secret@127.0.0.1:{network.url.rsplit(':', 1)[1]}")

    async def scenario() -> None:
        dials = network.dials
        # When both connect
        await proxied.connect()
        await direct.connect()
        await until(
            lambda: len(proxied_sink.events) == 1 and len(direct_sink.events) == 1, what="both attempts"
        )
        # Then only the device with the proxy dialed through it
        assert network.dials == dials + 1
        assert [e.name for e in (*proxied_sink.events, *direct_sink.events)] == ["connection.failure"] * 2
        # And the failure the device reports does not carry the proxy's password
        assert "secret" not in str(proxied_sink.events[0].data)
        # When its proxy is removed and it connects again
        await until(lambda: proxied._last_run.finished.is_set(), what="the first run stopped")
        proxied.use_proxy(None)
        await proxied.connect()
        await until(lambda: len(proxied_sink.events) == 2, what="the second attempt")
        # Then that attempt did not go through the played network
        assert network.dials == dials + 1

    run(scenario())
