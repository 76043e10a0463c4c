"""Tenant isolation of the group routes: another tenant's device cannot be named, and another
tenant's group is not found through one's own device.

Apart from ``test_tenant_isolation.py`` because group routes take a group JID and act
through a connected device, so they share one module-wide world of two tenants' groups.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from group_flows import Phone, connected_device, contact, create_group, lowercase, network_group
from isolation_steps import GROUP_ROUTES

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class GroupWorld:
    """Tenant A's connected device with a group (and a contact in it), and tenant B's
    connected device with a group of its own."""

    a_device: Phone
    a_group: str
    a_member: str
    a_code: str
    b_token: str
    b_device: Phone
    b_group: str


@pytest.fixture(scope="module")
def group_world(api: Any) -> GroupWorld:
    a, b = api.register(), api.register()
    a_device = connected_device(api, a.admin_token)
    friend = contact(api)
    a_group = create_group(api, a_device, "A's group", [friend.phone])["jid"]
    a_code = network_group(api, a_group)["invite_link"].rsplit("/", 1)[1]
    b_device = connected_device(api, b.admin_token)
    b_group = create_group(api, b_device, "B's group", [])["jid"]
    return GroupWorld(a_device, a_group, friend.jid, a_code, b.admin_token, b_device, b_group)


def group_request(world: GroupWorld, row: tuple[str, str, Any]) -> tuple[str, str, Any]:
    """The row aimed at A's group: its JID in the path, A's member and invite code, B's own group."""
    method, template, body = row
    values = {
        "jid": world.a_group,
        "member": world.a_member,
        "intruder": world.b_device.jid,
        "code": world.a_code,
        "own_group": world.b_group,
    }
    text = json.dumps(body) if body is not None else None
    for name, value in values.items():
        text = text.replace("{" + name + "}", value) if text else text
    return method, template.replace("{jid}", world.a_group), json.loads(text) if text else None


@pytest.mark.parametrize("row", GROUP_ROUTES, ids=[f"{m} {p}" for m, p, _ in GROUP_ROUTES])
def test_another_tenants_device_cannot_be_named_on_a_group_route(
    api: Any, group_world: GroupWorld, row: Any
) -> None:
    # Given tenant B's admin, and tenant A's connected device with a group
    method, path, body = group_request(group_world, row)
    before = network_group(api, group_world.a_group)
    # When B names A's device in X-Device-Id
    headers = {"X-Device-Id": group_world.a_device.device_id}
    response = api.request(method, path, group_world.b_token, json=body, headers=headers)
    # Then 404 device_not_found, as for a device nobody has, and A's group is untouched
    lowercase(response, 404, "device_not_found")
    assert network_group(api, group_world.a_group) == before
    assert group_world.a_group not in response.text


@pytest.mark.parametrize(
    "row",
    [row for row in GROUP_ROUTES if "{jid}" in row[1]],
    ids=[f"{m} {p}" for m, p, _ in GROUP_ROUTES if "{jid}" in p],
)
def test_another_tenants_group_is_not_found_through_ones_own_device(
    api: Any, group_world: GroupWorld, row: Any
) -> None:
    # Given tenant B's own connected device, which is not in A's group
    method, path, body = group_request(group_world, row)
    before = network_group(api, group_world.a_group)
    # When B acts on A's group through it
    response = group_world.b_device.call(api, method, path, body)
    # Then 404 group_not_found: nothing of the group is shown, and nothing changed
    lowercase(response, 404, "group_not_found")
    assert "A's group" not in response.text
    assert network_group(api, group_world.a_group) == before


def test_a_tenants_group_list_shows_only_its_own_devices_groups(api: Any, group_world: GroupWorld) -> None:
    groups = group_world.b_device.ok(api, "GET", "/groups")["groups"]
    assert [g["jid"] for g in groups] == [group_world.b_group]
