"""Test configuration shared by every level.

The environment the gateway reads is set here, at import, before any test module imports
a gateway module: table names and queue URLs are planned up front, so the settings that
are validated once are right for the whole run.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from deploy_rehearsal.plugin import RehearsalPlugin
from deploy_rehearsal.recording import Recorder

from gateway.aws import botocore_session
from local_stack.stack import LocalStack

# Short leases so the failover tests see a takeover within seconds; the restore jitter is
# kept small for the same reason, and so are the supervised sessions' first retry and dial
# deadline (production: 2 s and 90 s). The hosts sweep idle bus queues every 2 s (production:
# 5 minutes), so every run sees the sweep at work (and the deploy rehearsal its calls).
STACK = LocalStack(
    prefix="test",
    host_settings={
        "lease_ttl_seconds": 6.0,
        "restore_jitter_seconds": 0.2,
        "reconnect_initial_seconds": 0.3,
        "dial_timeout_seconds": 2.0,
        "sweep_interval_seconds": 2.0,
    },
)
os.environ.update(STACK.environment())

# The deploy rehearsal records every AWS call of the stack's code from here on: on the shared
# botocore session before any client is made from it (a client copies the session's handlers).
RECORDER = Recorder(botocore_session(), STACK.environment())


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(RehearsalPlugin(RECORDER), "deploy_rehearsal")


@pytest.fixture(scope="session")
def stack() -> Iterator[LocalStack]:
    """The whole local gateway on loopback, started once per test run."""
    STACK.start()
    yield STACK
    STACK.stop()


@dataclass
class Tenant:
    id: str
    name: str
    admin_token: str
    admin_id: str


class Api:
    """A thin HTTP client of the running gateway, as a user would drive it."""

    def __init__(self, stack: LocalStack) -> None:
        self.base_url = stack.base_url
        self.master_token = stack.master_token
        self.http = requests.Session()

    def request(
        self, method: str, path: str, token: str | None = None, **kwargs: object
    ) -> requests.Response:
        headers = dict(kwargs.pop("headers", None) or {})  # type: ignore[arg-type]
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return self.http.request(method, self.base_url + path, headers=headers, timeout=30, **kwargs)

    def pages(self, path: str, token: str, key: str, **params: object) -> list[list[dict[str, Any]]]:
        """Every page of the list at ``path`` (its items under ``key``), following ``next``."""
        found = []
        while True:
            response = self.request("GET", path, token, params=params)
            assert response.status_code == 200, response.text
            body = response.json()
            found.append(body[key])
            if body["next"] is None:
                return found
            params = {**params, "cursor": body["next"]}

    def register(self, name: str | None = None, **extra: object) -> Tenant:
        name = name or f"tenant-{uuid.uuid4().hex[:12]}"
        body = {"tenant_name": name, "email": f"admin@{name}.example.com", "password": "secret123", **extra}
        response = self.request("POST", "/register", self.master_token, json=body)
        assert response.status_code == 201, response.text
        data = response.json()
        return Tenant(data["tenant"]["id"], name, data["token"], data["user"]["id"])

    def walk(self, path: str, token: str, key: str, **params: object) -> list[dict]:
        """Every item of a paginated list, following ``next`` from the first page to the last."""
        items: list[dict] = []
        cursor: str | None = None
        while True:
            query = {**params, **({"cursor": cursor} if cursor else {})}
            response = self.request("GET", path, token, params=query)
            assert response.status_code == 200, response.text
            body = response.json()
            items.extend(body[key])
            cursor = body["next"]
            if cursor is None:
                return items

    def create_user(self, tenant: Tenant, role: str, token: str | None = None) -> tuple[str, str]:
        """A new user of ``role``; returns (user id, token)."""
        body = {"email": f"{role}-{uuid.uuid4().hex[:8]}@{tenant.name}.example.com", "password": "secret123"}
        response = self.request("POST", "/users", token or tenant.admin_token, json={**body, "role": role})
        assert response.status_code == 201, response.text
        user = response.json()["user"]
        return user["id"], user["token"]


@pytest.fixture(scope="session")
def api(stack: LocalStack) -> Api:
    return Api(stack)
