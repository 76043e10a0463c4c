"""Running the host as a process: the configured network adapter, signals, clean stop."""

from __future__ import annotations

import asyncio
import signal
from concurrent.futures import ThreadPoolExecutor

from session_host.config import DEFAULT_EXECUTOR_THREADS, HostSettings
from session_host.network.port import NetworkPort


def build_port(adapter: str) -> NetworkPort:
    """The network port named by ``NETWORK_ADAPTER``.

    ``simulated`` gets a fresh in-process network: with nobody playing the phones it only
    runs sessions, which is what a standalone host can do with it (the local stack shares
    one network between its hosts and the simulator's control API instead).
    """
    if adapter == "neonize":
        # Imported only here: it loads the Go library (~64 MB) and configures root logging.
        from session_host.network.neonize import NeonizePort

        return NeonizePort()
    from session_host.network.simulated import SimulatedNetwork, SimulatedPort

    return SimulatedPort(SimulatedNetwork())


async def serve(settings: HostSettings, port: NetworkPort) -> None:
    """Run a host until SIGTERM or SIGINT, then stop it cleanly."""
    from session_host.host import SessionHost

    loop = asyncio.get_running_loop()
    # Adapters run their blocking library calls on the default executor, one at a time per
    # session at most: size it above the number of sessions a host runs.
    loop.set_default_executor(ThreadPoolExecutor(DEFAULT_EXECUTOR_THREADS, thread_name_prefix="adapter"))
    stopping = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    host = SessionHost(port=port, settings=settings)
    await host.start()
    try:
        await stopping.wait()
    finally:
        await host.stop()


def main() -> None:
    settings = HostSettings()
    port = build_port(settings.network_adapter)  # before anything logs: neonize sets up logging
    asyncio.run(serve(settings, port))
