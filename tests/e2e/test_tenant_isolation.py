"""Tenant isolation over HTTP: a token reaches only its own tenant, whatever ids it is given.

Every tenant-scoped route that takes an id is a row of ``ID_ROUTES``; a guard test fails
when a route with a path parameter appears without a row, so new routes are covered by
adding one line (and, for a new kind of id, one entry to ``OTHER_TENANT_IDS``).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from group_flows import JPEG_BASE64, Phone, connected_device, contact, create_group, lowercase, network_group

pytestmark = pytest.mark.e2e

# (method, path template, body, error_code of the 404)
ID_ROUTES: list[tuple[str, str, dict[str, Any] | None, str]] = [
    ("GET", "/users/{user_id}", None, "USER_NOT_FOUND"),
    ("PUT", "/users/{user_id}", {"active": False}, "USER_NOT_FOUND"),
    ("PUT", "/users/{user_id}", {"role": "user"}, "USER_NOT_FOUND"),
    ("GET", "/devices/{device_id}", None, "DEVICE_NOT_FOUND"),
    ("PATCH", "/devices/{device_id}", {"min_send_interval_seconds": 5}, "DEVICE_NOT_FOUND"),
    ("DELETE", "/devices/{device_id}", None, "DEVICE_NOT_FOUND"),
    ("POST", "/devices/{device_id}/connect", None, "DEVICE_NOT_FOUND"),
    ("GET", "/devices/{device_id}/qr", None, "DEVICE_NOT_FOUND"),
    ("POST", "/devices/{device_id}/pair-phone", {"phone": "15551234567"}, "DEVICE_NOT_FOUND"),
    ("POST", "/devices/{device_id}/disconnect", None, "DEVICE_NOT_FOUND"),
    ("POST", "/devices/{device_id}/logout", None, "DEVICE_NOT_FOUND"),
    ("POST", "/webhook/deliveries/{event_id}/redeliver", None, "EVENT_NOT_FOUND"),
    ("DELETE", "/messages/{message_id}", {"chat_jid": "15551234567"}, "MESSAGE_NOT_FOUND"),
    (
        "DELETE",
        "/messages/{message_id}",
        {"chat_jid": "15551234567", "for_everyone": True},
        "MESSAGE_NOT_FOUND",
    ),
    ("GET", "/media/{media_id}", None, "MEDIA_NOT_FOUND"),
]

# Group routes act through a device and take a group JID, not a record id: a caller naming
# another tenant's device gets 404 device_not_found, and another tenant's group through its
# own device 404 group_not_found (lowercase, like every group error). (method, path, body)
GROUP_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/groups", {"name": "Mine", "participants": []}),
    ("GET", "/groups", None),
    ("POST", "/groups/join", {"link": "https://chat.whatsapp.com/{code}"}),
    ("GET", "/groups/{jid}", None),
    ("PATCH", "/groups/{jid}", {"name": "Taken over"}),
    ("POST", "/groups/{jid}/participants", {"participants": ["{intruder}"]}),
    ("DELETE", "/groups/{jid}/participants", {"participants": ["{member}"]}),
    ("POST", "/groups/{jid}/picture", {"image_base64": JPEG_BASE64}),
    ("PUT", "/groups/{jid}/ephemeral", {"duration_seconds": 86400}),
    ("GET", "/groups/{jid}/invite", None),
    ("POST", "/groups/{jid}/invite/reset", None),
    ("DELETE", "/groups/{jid}/leave", None),
    ("POST", "/groups/{jid}/community/link", {"group_jid": "{own_group}"}),
    ("DELETE", "/groups/{jid}/community/link", {"group_jid": "{own_group}"}),
    ("GET", "/groups/{jid}/requests", None),
    ("POST", "/groups/{jid}/requests", {"action": "approve", "participants": ["{member}"]}),
]

# Routes that name their device only in X-Device-Id (no id in the path): another tenant's
# device there is 404 DEVICE_NOT_FOUND, as a device nobody has. (method, path, body)
DEVICE_HEADER_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/status/privacy", None),
    ("PUT", "/status/privacy", {"type": "blacklist", "list": []}),
    ("POST", "/status/text", {"text": "not mine"}),
    ("POST", "/status/image", {"data_base64": JPEG_BASE64}),
    ("POST", "/status/video", {"url": "https://example.org/story.mp4"}),
]

# Routes that act through the caller's own device (the X-Device-Id rule): the caller gets one,
# so the 404 is about the id in the path and not about a missing device.
DEVICE_SCOPED = {"/webhook/deliveries/{event_id}/redeliver", "/messages/{message_id}"}

# path parameter -> how to get such an id in the *other* tenant: f(api, other_tenant) -> id
OTHER_TENANT_IDS: dict[str, Callable[[Any, Any], str]] = {
    "user_id": lambda api, other: api.create_user(other, "manager")[0],
    "device_id": lambda api, other: new_device(api, api.create_user(other, "user")[1]),
    "event_id": lambda api, other: logged_event(api, api.create_user(other, "user")[1]),
    "message_id": lambda api, other: sent_message(api, api.create_user(other, "user")[1]),
    "media_id": lambda api, other: stored_media(api, api.create_user(other, "user")[1]),
}

# path parameter -> the same kind of id, but of the other tenant's admin (a second target)
OTHER_TENANT_ADMIN_IDS: dict[str, Callable[[Any, Any], str]] = {
    "user_id": lambda _api, other: other.admin_id,
    "device_id": lambda api, other: new_device(api, other.admin_token),
    "event_id": lambda api, other: logged_event(api, other.admin_token),
    "message_id": lambda api, other: sent_message(api, other.admin_token),
    "media_id": lambda api, other: stored_media(api, other.admin_token),
}


def new_device(api: Any, token: str) -> str:
    response = api.request("POST", "/devices", token, json={})
    assert response.status_code == 201, response.text
    return response.json()["device"]["id"]


def logged_event(api: Any, token: str) -> str:
    """The id of an event in the delivery log of a new device of ``token``'s user, written as
    the delivery function writes it (so the table does not wait on a real delivery)."""
    from gateway.models import DeliveryModel

    response = api.request("POST", "/devices", token, json={})
    assert response.status_code == 201, response.text
    device = response.json()["device"]
    event_id = uuid.uuid4().hex
    DeliveryModel(
        device["id"],
        f"event#{event_id}",
        tenant_id=device["tenant_id"],
        event_id=event_id,
        event="device.connected",
        status="failed",
        envelope=json.dumps({"id": event_id, "event": "device.connected", "device_id": device["id"]}),
        expires_at=int(time.time()) + 3600,
    ).save()
    return event_id


def sent_message(api: Any, token: str) -> str:
    """The gateway's id of a message a new device of ``token``'s user sent to 15551234567, as
    the session host records a send (so the test does not wait on a real dispatch)."""
    from gateway.messages import outbox

    response = api.request("POST", "/devices", token, json={})
    assert response.status_code == 201, response.text
    device = response.json()["device"]
    send = outbox.enqueue(device["tenant_id"], device["id"], chat_jid="15551234567@s.whatsapp.net", text="hi")
    assert outbox.claim(send, 1)
    assert outbox.mark_sent(send, 1, f"3EB0{uuid.uuid4().hex[:16].upper()}", time.time())
    return send.message_id


def stored_media(api: Any, token: str) -> str:
    """The id of a media a new device of ``token``'s user received, stored as the session host
    stores one (so the test does not wait on a real message)."""
    from gateway.media import store

    response = api.request("POST", "/devices", token, json={})
    assert response.status_code == 201, response.text
    device = response.json()["device"]
    return store.put(device["tenant_id"], device["id"], b"\x89PNG\r\n\x1a\n", "image/png").media_id


def tenant_records(api: Any, tenant: Any) -> dict[str, list[dict[str, Any]]]:
    """Everything of a tenant that an id route could change, as its admin reads it."""
    users = api.request("GET", "/users", tenant.admin_token).json()["users"]
    return {
        "users": [
            api.request("GET", f"/users/{user['id']}", tenant.admin_token).json()["user"] for user in users
        ],
        "devices": api.request("GET", "/devices", tenant.admin_token).json()["devices"],
    }


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


def test_plain_user_cannot_probe_other_tenants_ids(api):
    # Given a plain user and another tenant
    mine = api.register()
    other = api.register()
    _, token = api.create_user(mine, "user")
    # When it asks for the other tenant's admin, and for an id nobody has
    response = api.request("GET", f"/users/{other.admin_id}", token)
    unknown = api.request("GET", f"/users/{uuid.uuid4()}", token)
    # Then both get the same refusal: nothing tells it the other id exists
    assert response.status_code == unknown.status_code == 403
    assert response.json() == unknown.json() == {"error": "Insufficient permissions"}


def test_user_list_shows_only_the_callers_tenant(api):
    # Given two tenants with users of their own
    first = api.register()
    first_ids = {first.admin_id, api.create_user(first, "manager")[0], api.create_user(first, "user")[0]}
    second = api.register()
    second_ids = {second.admin_id, api.create_user(second, "user")[0]}
    # When each admin lists its users, even naming the other tenant in the query or headers
    for tenant, own, foreign in ((first, first_ids, second), (second, second_ids, first)):
        response = api.request(
            "GET",
            "/users",
            tenant.admin_token,
            params={"tenant_id": foreign.id},
            headers={"X-Tenant-Id": foreign.id},
        )
        # Then it sees exactly its own tenant's users
        assert response.status_code == 200, response.text
        users = response.json()["users"]
        assert {user["id"] for user in users} == own
        assert {user["tenant_id"] for user in users} == {tenant.id}


def test_status_shows_only_the_callers_tenant(api):
    # Given two tenants
    first = api.register()
    second = api.register()
    _, user_token = api.create_user(second, "user")
    # When a user of each calls GET /status, naming the other tenant in the query and headers
    for token, tenant, foreign in ((first.admin_token, first, second), (user_token, second, first)):
        response = api.request(
            "GET", "/status", token, params={"tenant_id": foreign.id}, headers={"X-Tenant-Id": foreign.id}
        )
        # Then it reports its own tenant only
        assert response.status_code == 200, response.text
        data = response.json()
        assert data["tenant"] == {"id": tenant.id, "name": tenant.name}
        assert data["user"]["tenant_id"] == tenant.id
        assert foreign.id not in response.text
        assert foreign.name not in response.text


def test_created_user_lands_in_the_callers_tenant(api):
    # Given two tenants
    mine = api.register()
    other = api.register()
    body = {
        "email": f"p-{uuid.uuid4().hex[:8]}@example.com",
        "password": "secret123",
        "role": "user",
        "tenant_id": other.id,
    }
    # When an admin creates a user while naming the other tenant in the body
    response = api.request("POST", "/users", mine.admin_token, json=body, headers={"X-Tenant-Id": other.id})
    # Then the user belongs to the caller's tenant, and the other tenant did not gain a user
    assert response.status_code == 201, response.text
    user = response.json()["user"]
    assert user["tenant_id"] == mine.id
    assert user["id"] in {u["id"] for u in api.request("GET", "/users", mine.admin_token).json()["users"]}
    assert len(api.request("GET", "/users", other.admin_token).json()["users"]) == 1


def test_same_email_in_two_tenants_are_two_separate_users(api):
    # Given the same email registered as a user in two tenants
    first = api.register()
    second = api.register()
    email = f"shared-{uuid.uuid4().hex[:8]}@example.com"
    body = {"email": email, "password": "secret123", "role": "manager"}
    first_user = api.request("POST", "/users", first.admin_token, json=body).json()["user"]
    second_user = api.request("POST", "/users", second.admin_token, json=body).json()["user"]
    # When the first one is deactivated
    api.request("PUT", f"/users/{first_user['id']}", first.admin_token, json={"active": False})
    # Then the second one, with its own id and token, is unaffected
    assert first_user["id"] != second_user["id"]
    assert first_user["token"] != second_user["token"]
    assert api.request("GET", "/status", first_user["token"]).status_code == 401
    status = api.request("GET", "/status", second_user["token"])
    assert status.status_code == 200
    assert status.json()["tenant"]["id"] == second.id


def test_plain_user_gets_404_for_another_tenants_device(api, envelope):
    # Given a plain user, and a device of another tenant
    mine = api.register()
    other = api.register()
    _, token = api.create_user(mine, "user")
    device_id = new_device(api, other.admin_token)
    # When the user reads or deletes that device
    # Then 404 DEVICE_NOT_FOUND, as for a device nobody has, and the device stays
    envelope(api.request("GET", f"/devices/{device_id}", token), 404, "DEVICE_NOT_FOUND")
    envelope(api.request("DELETE", f"/devices/{device_id}", token), 404, "DEVICE_NOT_FOUND")
    assert api.request("GET", f"/devices/{device_id}", other.admin_token).status_code == 200


def test_device_list_shows_only_the_callers_tenant(api):
    # Given two tenants with a device each
    first = api.register()
    second = api.register()
    first_device = new_device(api, first.admin_token)
    second_device = new_device(api, second.admin_token)
    # When the first admin lists devices, naming the other tenant in the query and headers
    response = api.request(
        "GET",
        "/devices",
        first.admin_token,
        params={"tenant_id": second.id},
        headers={"X-Tenant-Id": second.id},
    )
    # Then it sees its own device only
    assert response.status_code == 200, response.text
    assert [device["id"] for device in response.json()["devices"]] == [first_device]
    assert second_device not in response.text


# --- groups -------------------------------------------------------------------------------


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


@pytest.mark.parametrize("row", DEVICE_HEADER_ROUTES, ids=[f"{m} {p}" for m, p, _ in DEVICE_HEADER_ROUTES])
def test_another_tenants_device_cannot_be_named_in_the_device_header(
    api: Any, envelope: Any, row: Any
) -> None:
    # Given tenant A's device, and tenant B's admin with a device of its own
    method, path, body = row
    mine, other = api.register(), api.register()
    new_device(api, mine.admin_token)
    theirs = new_device(api, other.admin_token)
    before = tenant_records(api, other)
    # When A's admin names B's device in X-Device-Id
    response = api.request(method, path, mine.admin_token, json=body, headers={"X-Device-Id": theirs})
    # Then 404 DEVICE_NOT_FOUND, exactly as for a device nobody has, and B's records are as they were
    envelope(response, 404, "DEVICE_NOT_FOUND")
    unknown = api.request(
        method, path, mine.admin_token, json=body, headers={"X-Device-Id": str(uuid.uuid4())}
    )
    envelope(unknown, 404, "DEVICE_NOT_FOUND")
    assert tenant_records(api, other) == before
