"""Starts and stops the whole local gateway: moto, the session host, the webhook delivery worker
and the API server."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from local_stack.aws import create_resources, environment_for, free_port, planned_names, start_moto
from local_stack.principals import SESSION_HOST, running_as
from local_stack.template import REPO_ROOT, load_template, local_resources

if TYPE_CHECKING:
    from local_stack.delivery_worker import DeliveryWorker
    from session_host.host_thread import HostThread
    from session_host.network.port import NetworkPort
    from session_host.network.simulated import SimulatedNetwork

STATE_DIR = REPO_ROOT / ".local"


def persistent_master_token(state_dir: Path = STATE_DIR) -> str:
    """A master token generated once and kept under the git-ignored ``.local/``."""
    path = state_dir / "master_token"
    if path.exists():
        return path.read_text().strip()
    state_dir.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    path.write_text(token + "\n")
    path.chmod(0o600)
    return token


@dataclass
class LocalStack:
    """The gateway on loopback. ``start`` sets the process environment the components read."""

    port: int = 0
    master_token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    prefix: str = "gateway-local"
    moto_port: int = field(default_factory=free_port)
    extra_environment: dict[str, str] = field(default_factory=dict)
    # Overrides of the session hosts' settings (``HostSettings`` field names), e.g. a short
    # lease for the failover tests.
    host_settings: dict[str, Any] = field(default_factory=dict)
    hosts: list[RunningHost] = field(default_factory=list, init=False)
    network: SimulatedNetwork | None = field(default=None, init=False)
    delivery: DeliveryWorker | None = field(default=None, init=False)
    slow_delivery: DeliveryWorker | None = field(default=None, init=False)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.moto_port}"

    def environment(self) -> dict[str, str]:
        """The environment every component reads; set it before any gateway module is imported."""
        resources = local_resources(load_template())
        return {
            **environment_for(self.endpoint, resources, planned_names(self.endpoint, resources, self.prefix)),
            "GATEWAY_LOCAL_MODE": "true",
            "DYNAMIC_QUEUE_PREFIX": f"{self.prefix}-dq",
            "MASTER_TOKEN": self.master_token,
            "ALLOW_HTTP_WEBHOOKS": "true",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "POWERTOOLS_METRICS_DISABLED": "true",
            "POWERTOOLS_SERVICE_NAME": "gateway",
            "POWERTOOLS_METRICS_NAMESPACE": "MessagingGateway",
            # No API Gateway in front: a send may be held open longer (decisions, "Sending").
            "SEND_HOLD_SECONDS": os.environ.get("SEND_HOLD_SECONDS", "110"),
            **self.extra_environment,
        }

    def start(self) -> LocalStack:
        from local_stack import moto_fixes

        os.environ.update(self.environment())
        moto_fixes.apply()  # before the first request: DynamoDB safe under concurrency, SQS cheap
        self._moto, _ = start_moto(self.moto_port)
        resources = local_resources(load_template())
        self.names = create_resources(self.endpoint, resources, self.prefix)
        if self.names != planned_names(self.endpoint, resources, self.prefix):
            raise RuntimeError(f"moto named the resources differently than planned: {self.names}")
        self._data_dir = Path(tempfile.mkdtemp(prefix="gateway-sessions-"))
        # Each host's liveness file is its own (as in its own container) and this stack's:
        # the default, one fixed file in the temp dir, would be shared with any other stack.
        self._liveness_dir = Path(tempfile.mkdtemp(prefix="gateway-liveness-"))
        if _adapter() == "simulated":
            from session_host.network.simulated import SimulatedNetwork

            self.network = SimulatedNetwork()
        self.start_host()
        self._start_delivery()
        self._start_api()
        return self

    def _start_delivery(self) -> None:
        """The webhook delivery functions, fed from the events queue and the slow lane's queue
        as Lambda would feed them."""
        from gateway.config import get_settings
        from local_stack.delivery_worker import SLOW_FUNCTION_NAME, DeliveryWorker, template_invocations

        settings = get_settings()
        self.delivery = DeliveryWorker(settings.events_queue_url).start()
        self.slow_delivery = DeliveryWorker(
            settings.slow_events_queue_url,
            invokers=template_invocations(SLOW_FUNCTION_NAME),
            function=SLOW_FUNCTION_NAME,
        ).start()

    # --- session hosts ------------------------------------------------------------------

    def start_host(self) -> RunningHost:
        """One more session host, on its own thread and loop, sharing the network and data dir;
        it runs as the session host (``local_stack.principals``) from its start to its stop."""
        from session_host.config import HostSettings
        from session_host.host import SessionHost
        from session_host.host_thread import HostThread

        port = self._port()
        liveness_file = self._liveness_dir / f"host-{uuid.uuid4().hex[:8]}.alive"
        settings = HostSettings(
            **{"data_dir": self._data_dir, "liveness_file": liveness_file, **self.host_settings}
        )
        with running_as(SESSION_HOST):
            running = RunningHost(HostThread(SessionHost(port=port, settings=settings)).start(), port)
        self.hosts.append(running)
        return running

    def stop_host(self, running: RunningHost) -> None:
        """A clean stop: sessions closed, leases released, devices handed to the other hosts."""
        self.hosts.remove(running)
        with running_as(SESSION_HOST):
            running.thread.stop()

    def kill_host(self, running: RunningHost) -> None:
        """A crash: the host stops dead and the network sees its connections vanish."""
        self.hosts.remove(running)
        running.thread.kill()
        crash = getattr(running.port, "crash", None)
        if crash is not None:
            crash()

    def _port(self) -> NetworkPort:
        if self.network is not None:
            from session_host.network.simulated import SimulatedPort

            return SimulatedPort(self.network)
        from session_host.runtime import build_port

        return build_port(_adapter())

    def _start_api(self) -> None:
        from local_stack.apps import local_app, served_routers
        from local_stack.principals import RoutedFunctions, handler_functions
        from local_stack.server import make_server

        self.port = self.port or free_port()
        routes = [route for router in served_routers() for route in router.routes]
        routed = RoutedFunctions(local_app(self.network), routes, handler_functions(load_template()))
        self._server = make_server(routed, self.port)
        self._api_thread = threading.Thread(target=self._server.run, name="api", daemon=True)
        self._api_thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if time.monotonic() > deadline or not self._api_thread.is_alive():
                raise RuntimeError("the API server did not start")
            time.sleep(0.02)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._api_thread.join(timeout=10)
        for running in list(self.hosts):
            self.stop_host(running)
        for worker in (self.delivery, self.slow_delivery):
            if worker is not None:
                worker.stop()
        self._moto.stop()
        shutil.rmtree(self._data_dir, ignore_errors=True)
        shutil.rmtree(self._liveness_dir, ignore_errors=True)


@dataclass(frozen=True)
class RunningHost:
    """A session host of the local stack and the network port it runs on."""

    thread: HostThread
    port: NetworkPort

    @property
    def host_id(self) -> str:
        return self.thread.host.host_id

    def owned_devices(self) -> frozenset[str]:
        return self.thread.host.owned_devices()


def _adapter() -> str:
    from gateway.config import get_settings

    return get_settings().network_adapter
