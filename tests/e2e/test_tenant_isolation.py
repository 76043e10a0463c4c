"""Tenant isolation over HTTP: a token reaches only its own tenant, whatever ids it is given.

Every tenant-scoped route that takes an id is a row of ``ID_ROUTES`` (group routes of
``GROUP_ROUTES``), both in :mod:`isolation_steps`; a guard test here fails when a route with
a path parameter appears without a row. The other route families have modules of their own:
users and ``/status`` (``test_isolation_users.py``), devices and the device header
(``test_isolation_devices.py``), groups (``test_isolation_groups.py``).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from isolation_steps import (
    DEVICE_SCOPED,
    GROUP_ROUTES,
    ID_ROUTES,
    OTHER_TENANT_ADMIN_IDS,
    OTHER_TENANT_IDS,
    PAIRED_DEVICE_SCOPED,
    new_device,
    paired_device,
    tenant_records,
)

pytestmark = pytest.mark.e2e


def route_id(row: tuple[str, str, dict[str, Any] | None, str]) -> str:
    method, path, body, _ = row
    return f"{method} {path} {body or ''}".strip()


def tenant_scoped_id_routes() -> set[tuple[str, str]]:
    """(method, path) of every served route with a path parameter, master-only routes excepted."""
    from fastapi.routing import APIRoute

    from local_stack.apps import function_routers
    from platform_api.routes import router as platform_router

    routes = set()
    for router in function_routers():
        if router is platform_router:  # master token only, crosses tenants by design
            continue
        for route in router.routes:
            if isinstance(route, APIRoute) and "{" in route.path:
                routes.update((method, route.path) for method in route.methods)
    return routes


def test_every_tenant_scoped_route_with_an_id_is_in_the_isolation_table():
    # Given every tenant-scoped route the gateway serves with an id in its path
    served = tenant_scoped_id_routes()
    # When it is compared with the rows of the isolation table
    covered = {(method, path) for method, path, _, _ in ID_ROUTES}
    covered |= {(method, path) for method, path, _ in GROUP_ROUTES}
    # Then every such route has a row, and every path parameter a way to get another tenant's id
    assert served - covered == set(), "add a row to ID_ROUTES (GROUP_ROUTES for a group route)"
    parameters = {name for _, path in served for name in re.findall(r"\{(\w+)", path)}
    assert parameters <= OTHER_TENANT_IDS.keys() | {"jid"}


@pytest.mark.parametrize("row", ID_ROUTES, ids=[route_id(row) for row in ID_ROUTES])
@pytest.mark.parametrize("caller_role", ["admin", "manager"])
@pytest.mark.parametrize("target", ["member", "admin"])
def test_another_tenants_id_is_not_found(api, envelope, row, caller_role, target):
    method, template, body, code = row
    # Given two tenants, and a caller of the first
    mine = api.register()
    other = api.register()
    token = mine.admin_token if caller_role == "admin" else api.create_user(mine, caller_role)[1]
    if template in DEVICE_SCOPED:
        new_device(api, token)
    elif template in PAIRED_DEVICE_SCOPED:
        paired_device(api, token)
    ids = OTHER_TENANT_IDS if target == "member" else OTHER_TENANT_ADMIN_IDS
    names = re.findall(r"\{(\w+)", template)
    values = {name: ids[name](api, other) for name in names}
    path = template.format(**values)
    before = tenant_records(api, other)
    # When the caller uses the other tenant's id on a route of its own tenant
    response = api.request(method, path, token, json=body)
    # Then 404, exactly as for an id that does not exist
    envelope(response, 404, code)
    unknown = template.format(**{name: str(uuid.uuid4()) for name in names})
    assert api.request(method, unknown, token, json=body).json()["error_code"] == code
    # And nothing of the other tenant changed or leaked
    assert tenant_records(api, other) == before
    for value in values.values():
        assert value not in response.text
