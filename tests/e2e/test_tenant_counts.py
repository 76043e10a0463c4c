"""A tenant's ``users_count`` and ``devices_count``, kept on the tenant record in the same
transaction as the user or device: exact after creations, deletions and concurrent writes."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.e2e


def counts(api: Any, tenant_id: str) -> tuple[int, int]:
    response = api.request("GET", f"/global/tenants/{tenant_id}", api.master_token)
    assert response.status_code == 200, response.text
    tenant = response.json()["tenant"]
    return tenant["users_count"], tenant["devices_count"]


def call(api: Any, method: str, path: str, token: str, **kwargs: Any) -> requests.Response:
    """One request on its own connection: a ``requests.Session`` is not shared across threads."""
    headers = {"Authorization": f"Bearer {token}"}
    return requests.request(method, api.base_url + path, headers=headers, timeout=60, **kwargs)


def at_once(tasks: list[Callable[[], requests.Response]]) -> list[requests.Response]:
    with ThreadPoolExecutor(max_workers=len(tasks)) as pool:
        return list(pool.map(lambda task: task(), tasks))


def test_counts_follow_creations_and_deletions(api):
    # Given a new tenant: its admin, no device
    tenant = api.register()
    assert counts(api, tenant.id) == (1, 0)
    # When two users and three devices are created, and one device deleted
    api.create_user(tenant, "manager")
    api.create_user(tenant, "user")
    devices = [
        api.request("POST", "/devices", tenant.admin_token, json={}).json()["device"]["id"] for _ in range(3)
    ]
    assert api.request("DELETE", f"/devices/{devices[0]}", tenant.admin_token).status_code == 200
    # Then the tenant counts three users and two devices
    assert counts(api, tenant.id) == (3, 2)


def test_refused_creations_count_nothing(api):
    # Given a tenant with a user
    tenant = api.register()
    email = f"dup@{tenant.name}.example.com"
    body = {"email": email, "password": "secret123", "role": "user"}
    assert api.request("POST", "/users", tenant.admin_token, json=body).status_code == 201
    # When the same email is created again
    assert api.request("POST", "/users", tenant.admin_token, json=body).status_code == 409
    # Then the counts are unchanged
    assert counts(api, tenant.id) == (2, 0)


def test_concurrent_device_creations_are_all_counted(api):
    # Given a tenant
    tenant = api.register()
    # When twelve devices are created at once, from twelve connections
    created = at_once([lambda: call(api, "POST", "/devices", tenant.admin_token, json={})] * 12)
    # Then each was created and counted: the count is the number of devices listed
    assert [response.status_code for response in created] == [201] * 12
    listed = api.walk("/devices", tenant.admin_token, "devices")
    assert len(listed) == 12
    assert counts(api, tenant.id) == (1, 12)


def seed_tenants(count: int) -> None:
    """``count`` more tenant records, written straight to the table: a platform of some size
    (the local stack's DynamoDB copies a table in every transaction that touches it)."""
    from gateway.models import TenantModel
    from gateway.timestamps import iso_utc

    now = iso_utc()
    with TenantModel.batch_write() as batch:
        for index in range(count):
            tenant_id = str(uuid.uuid4())
            batch.save(TenantModel(tenant_id, name=f"seeded-{index}", created_at=now, updated_at=now))


def test_counts_survive_refused_transactions_running_beside_them(api):
    # Given a platform of a few hundred tenants, one of them ours, a taken tenant name and a
    # taken email
    seed_tenants(400)
    tenant = api.register()
    taken = api.register()
    email = {"email": f"admin@{tenant.name}.example.com", "password": "secret123", "role": "user"}
    duplicate_tenant = {"tenant_name": taken.name, "email": "x@example.com", "password": "secret123"}
    # When devices and users are created while registrations and user creations that must be
    # refused (cancelled transactions on the same tables) run at the same time
    tasks: list[Callable[[], requests.Response]] = []
    for _ in range(10):
        tasks.append(lambda: call(api, "POST", "/devices", tenant.admin_token, json={}))
        tasks.append(lambda: call(api, "POST", "/register", api.master_token, json=duplicate_tenant))
        tasks.append(lambda: call(api, "POST", "/users", tenant.admin_token, json=email))
    tasks += [
        lambda index=index: call(
            api,
            "POST",
            "/users",
            tenant.admin_token,
            json={**email, "email": f"u{index}@{tenant.name}.example.com"},
        )
        for index in range(4)
    ]
    results = at_once(tasks)
    # Then every refusal was a 409, every creation a 201
    assert sorted(response.status_code for response in results) == [201] * 14 + [409] * 20
    # And every device and user created is there, and counted
    assert len(api.walk("/devices", tenant.admin_token, "devices")) == 10
    assert len(api.walk("/users", tenant.admin_token, "users")) == 5
    assert counts(api, tenant.id) == (5, 10)


def test_a_device_deleted_twice_at_once_is_counted_off_once(api):
    # Given a tenant with two devices
    tenant = api.register()
    first = api.request("POST", "/devices", tenant.admin_token, json={}).json()["device"]["id"]
    api.request("POST", "/devices", tenant.admin_token, json={})
    # When the first is deleted by four requests at once
    results = at_once([lambda: call(api, "DELETE", f"/devices/{first}", tenant.admin_token)] * 4)
    # Then it is gone (the late ones may find it gone already) and counted off once
    assert {response.status_code for response in results} <= {200, 404}
    assert 200 in {response.status_code for response in results}
    assert counts(api, tenant.id) == (1, 1)
