"""Starts and stops the whole local gateway: moto, the API server, and (later) the session host."""

from __future__ import annotations

import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from local_stack.aws import create_resources, environment_for, free_port, planned_names, start_moto
from local_stack.template import REPO_ROOT, load_template, local_resources

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
            **self.extra_environment,
        }

    def start(self) -> LocalStack:
        os.environ.update(self.environment())
        self._moto, _ = start_moto(self.moto_port)
        resources = local_resources(load_template())
        self.names = create_resources(self.endpoint, resources, self.prefix)
        if self.names != planned_names(self.endpoint, resources, self.prefix):
            raise RuntimeError(f"moto named the resources differently than planned: {self.names}")
        self._start_api()
        return self

    def _start_api(self) -> None:
        from local_stack.apps import local_app
        from local_stack.server import make_server

        self.port = self.port or free_port()
        self._server = make_server(local_app(), self.port)
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
        self._moto.stop()
