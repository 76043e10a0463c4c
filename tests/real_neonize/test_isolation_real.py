"""Isolation on the real library: fifty devices hanging on a silent dial and being closed
never delay another device's calls by more than a second, and a host shuts down promptly.

Measured here (two cores): fifty starts take 5 to 9 s in all (each start holds the gate for
the start hold, 0.1 s, as nothing answers); meanwhile, and while all fifty are closed, another
device's calls into the library answer within about 0.1 s, every close() within a millisecond.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from session_support import (
    SessionFactory,
    open_fds,
    os_threads,
    python_threads,
    rss_kib,
    run,
    timed,
    until,
)

from gateway.failures.kinds import ErrorKind
from local_stack.played_network import PlayedNetwork
from session_host.network.neonize.clients import GatedClient, call_with_deadline
from session_host.network.neonize.locks import GO_GATE
from session_host.network.port import NetworkError, SessionState

DEVICES = 50
ISOLATION_SECONDS = 1.0
PEER = "5511999998888@s.whatsapp.net"

logger = logging.getLogger(__name__)


def test_fifty_devices_hanging_on_a_dial_never_delay_another_device(
    neonize_sessions: SessionFactory, network: PlayedNetwork
) -> None:
    # Given a silent network, and another device whose client the Go side knows (it dials too)
    network.play("silent")
    other, _ = neonize_sessions.open()
    hanging = [neonize_sessions.open()[0] for _ in range(DEVICES)]
    library_delays: list[float] = []
    adapter_delays: list[float] = []

    async def library_call() -> str:
        """A call into the library as every operation of the adapter makes it: on a thread of
        its own, with a deadline, on a ticket of the process-wide gate (one that answers at
        once: whatsmeow makes a message id without the network)."""
        gated = GatedClient(other._last_run.client, GO_GATE, lambda: None)
        return await call_with_deadline(gated.generate_message_id, ISOLATION_SECONDS, "message id")

    async def probe(stop: asyncio.Event) -> None:
        """The other device's calls, over and over, while the fifty start and are closed."""
        while not stop.is_set():
            took, answer = await timed(library_call())
            assert isinstance(answer, str), answer
            library_delays.append(took)
            took, refused = await timed(other.sending.send_text(PEER, "hello"))
            assert isinstance(refused, NetworkError)
            assert refused.kind is ErrorKind.NOT_CONNECTED
            adapter_delays.append(took)
            await asyncio.sleep(0.02)

    async def scenario() -> None:
        dials = network.dials
        await other.connect()
        await until(lambda: network.dials > dials, what="the other device's dial")
        threads, fds, rss, go_threads = python_threads(), open_fds(), rss_kib(), os_threads()
        stop = asyncio.Event()
        prober = asyncio.create_task(probe(stop))
        # When fifty devices start and every dial hangs
        started = time.monotonic()
        took = max(await asyncio.gather(*(timed(session.connect()) for session in hanging)))[0]
        assert took < ISOLATION_SECONDS
        await until(lambda: network.dials >= dials + 1 + DEVICES, timeout=30.0, what="fifty dials")
        all_dialing = time.monotonic() - started
        per_session = (
            (python_threads() - threads) / DEVICES,
            (open_fds() - fds) / DEVICES,
            (rss_kib() - rss) / DEVICES,
            (os_threads() - go_threads) / DEVICES,
        )
        assert all(session.state is SessionState.NOT_READY for session in hanging)
        # And all fifty are closed while their dials still hang
        closes = await asyncio.gather(*(timed(session.close()) for session in hanging))
        await asyncio.sleep(0.2)  # the other device keeps calling meanwhile
        stop.set()
        await prober
        # Then every close() returned at once, and the other device never waited a second
        assert max(took for took, _ in closes) < ISOLATION_SECONDS
        assert len(library_delays) > 10
        assert max(library_delays) < ISOLATION_SECONDS
        assert max(adapter_delays) < ISOLATION_SECONDS
        logger.warning(
            "%d devices dialing after %.1f s; per session %.1f Python threads, %.1f fds, %.0f KiB RSS, "
            "%.1f OS threads; the other device's library calls: %d, median %.3f s, max %.3f s; "
            "close() max %.4f s",
            DEVICES, all_dialing, *per_session, len(library_delays), statistics.median(library_delays),
            max(library_delays), max(took for took, _ in closes),
        )  # fmt: skip
        assert per_session[0] <= 3
        assert per_session[2] <= 2048
        # And once the dials end, every run is stopped and its threads are gone
        network.play("refuse")
        await until(lambda: all(s._last_run.finished.is_set() for s in hanging), timeout=10.0, what="stops")
        await until(lambda: python_threads() <= threads, timeout=5.0, what=f"threads back to {threads}")

    run(scenario())


SHUTDOWN = """
import asyncio, os, sys, tempfile, time
from session_host.network.neonize import NeonizePort, NeonizeTimings

async def sink(event):
    pass

async def main():
    port = NeonizePort(proxy_url=sys.argv[1], timings=NeonizeTimings(stop_join=1.0))
    data = tempfile.mkdtemp()
    sessions = [port.open_session(f"dev-{i}", data_dir=data, sink=sink) for i in range(10)]
    for session in sessions:
        await session.connect()
    while not all(session._last_run._connect_started for session in sessions):
        await asyncio.sleep(0.01)
    print("dialing", flush=True)
    started = time.monotonic()
    still = await port.close_all(timeout=1.0)
    print(f"closed {time.monotonic() - started:.2f} still_dialing={still}", flush=True)
    if still:
        os._exit(0)  # neonize's connect threads are not daemons: do not wait out their dials

asyncio.run(main())
"""


def test_a_host_closing_every_session_while_dials_hang_exits_within_seconds(
    network: PlayedNetwork, tmp_path: Path
) -> None:
    # Given a process with ten sessions dialing a silent network
    network.play("silent")
    script = tmp_path / "shutdown.py"
    script.write_text(textwrap.dedent(SHUTDOWN), encoding="utf-8")
    started = time.monotonic()
    # When it closes every session of its port and exits
    finished = subprocess.run(  # noqa: S603 (this interpreter, a script of the test's own)
        [sys.executable, str(script), network.url], capture_output=True, text=True, timeout=30, check=False
    )
    took = time.monotonic() - started
    # Then it said how many runs still dial, and was gone within seconds (not whatsmeow's 60 s)
    assert finished.returncode == 0, finished.stderr[-2000:]
    assert "dialing" in finished.stdout
    assert "still_dialing=10" in finished.stdout
    assert took < 15.0
