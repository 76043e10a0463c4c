"""Fixtures of the contract tests: the served OpenAPI document and a tenant to exercise it with.

The contract tests drive the running local stack (``stack``) through the document it serves,
as a client generated from it would.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
import schemathesis
from schemathesis import Case
from schemathesis.openapi import from_url

from gateway.devices.access import DEVICE_HEADER

CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 8,
        "generation": {
            "mode": "positive",
            "max-examples": 10,
            "deterministic": True,
            "with-security-parameters": False,
        },
        "phases": {"stateful": {"enabled": False}},
        "checks": {
            # The test device has no session: its documented 503s are answers, not refusals.
            "positive_data_acceptance": {"expected-statuses": ["2xx", "404", "409", "503"]},
        },
    }
)


@dataclass(frozen=True)
class World:
    """What the contract test acts on: a tenant's admin, one of its devices and one of its users."""

    base_url: str
    master_token: str
    admin_token: str
    tenant_id: str
    device_id: str
    user_id: str

    def request(
        self, method: str, path: str, token: str, headers: dict[str, str] | None = None, **kwargs: Any
    ) -> requests.Response:
        headers = {**(headers or {}), "Authorization": f"Bearer {token}"}
        return requests.request(method, self.base_url + path, headers=headers, timeout=30, **kwargs)

    def new_device(self) -> str:
        response = self.request("POST", "/devices", self.admin_token, json={"name": "throwaway"})
        assert response.status_code == 201, response.text
        return response.json()["device"]["id"]

    def new_tenant(self) -> str:
        name = f"contract-throwaway-{uuid.uuid4().hex[:12]}"
        body = {"tenant_name": name, "email": f"admin@{name}.example.com", "password": "secret123"}
        response = self.request("POST", "/register", self.master_token, json=body)
        assert response.status_code == 201, response.text
        return response.json()["tenant"]["id"]

    def aim(self, case: Case) -> None:
        """Point ``case`` at the test's own records: its device in ``X-Device-Id`` always, and
        its device, user and tenant in the path for half of the cases (the generated value is
        kept for the others, so ids of every shape are tried too). A deletion gets a record of
        its own, so the others stay."""
        if any(parameter.name == DEVICE_HEADER for parameter in case.operation.headers):
            case.headers = {**(case.headers or {}), DEVICE_HEADER: self.device_id}
        deleting = case.method.upper() == "DELETE"
        own = {
            "device_id": self.new_device if deleting else lambda: self.device_id,
            "user_id": lambda: self.user_id,
            "tenant_id": self.new_tenant if deleting else lambda: self.tenant_id,
        }
        for name, value in (case.path_parameters or {}).items():
            if name in own and len(str(value)) % 2 == 0:
                case.path_parameters[name] = own[name]()
        if case.query and "cursor" in case.query:
            self._issued_cursor(case)
        if isinstance(case.body, dict) and isinstance(case.body.get("send_at"), str):
            # At most 30 days ahead, which no schema can describe beyond its format: a moment
            # an hour ahead (refusing others is tested in tests/e2e/test_planned_sends.py).
            case.body["send_at"] = (datetime.now(UTC) + timedelta(hours=1)).isoformat()

    def _issued_cursor(self, case: Case) -> None:
        """A cursor is opaque: only a ``next`` the gateway issued is valid, which no schema can
        describe beyond its alphabet. The case gets a real one of its list (a second page of
        one item per page), or none where the list has a single page; refusing any other is
        tested in tests/e2e/test_pagination.py."""
        token = self.master_token if case.path == "/tenants" else self.admin_token
        through_device = any(parameter.name == DEVICE_HEADER for parameter in case.operation.headers)
        headers = {DEVICE_HEADER: self.device_id} if through_device else {}
        response = self.request("GET", case.path, token, params={"limit": 1}, headers=headers)
        assert response.status_code == 200, response.text
        issued = response.json()["next"]
        if issued is None:
            del case.query["cursor"]
        else:
            case.query["cursor"] = issued


@pytest.fixture(scope="module")
def served_document(stack: Any, world: World) -> schemathesis.BaseSchema:
    """The document the running gateway serves, as schemathesis reads it."""
    return from_url(f"{stack.base_url}/openapi.json", config=CONFIG)


@pytest.fixture(scope="module")
def world(api: Any) -> Iterator[World]:
    """A fresh tenant with one device and one extra user. Every tenant registered meanwhile,
    this one included, is deleted afterwards, so the rest of the suite does not list them."""
    tenant = api.register()
    device = api.request("POST", "/devices", tenant.admin_token, json={"name": "contract"})
    assert device.status_code == 201, device.text
    user_id, _ = api.create_user(tenant, "user")
    world = World(
        base_url=api.base_url,
        master_token=api.master_token,
        admin_token=tenant.admin_token,
        tenant_id=tenant.id,
        device_id=device.json()["device"]["id"],
        user_id=user_id,
    )
    before = tenant_ids(api) - {world.tenant_id}
    yield world
    for tenant_id in tenant_ids(api) - before:
        world.request("DELETE", f"/global/tenants/{tenant_id}", world.master_token)


def tenant_ids(api: Any) -> set[str]:
    """Every tenant on the platform, page after page."""
    pages = api.pages("/tenants", api.master_token, "tenants", limit=200)
    return {tenant["id"] for page in pages for tenant in page}
