"""Group errors over HTTP that concern the device, the request or the network rather than a
group: every one in the lowercase envelope, authentication aside."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from device_flows import create_device, simulator, wait_for_status
from group_flows import (
    JPEG_BASE64,
    Phone,
    connected_device,
    contact,
    contact_group,
    create_group,
    lowercase,
    network_group,
)

pytestmark = pytest.mark.e2e

GROUP = "120363000000000001@g.us"

# Every group route, with a body it accepts.
ROUTES: list[tuple[str, str, Any]] = [
    ("POST", "/groups", {"name": "Trip", "participants": []}),
    ("GET", "/groups", None),
    ("GET", f"/groups/{GROUP}", None),
    ("PATCH", f"/groups/{GROUP}", {"name": "New"}),
    ("POST", f"/groups/{GROUP}/participants", {"participants": ["15551234567"]}),
    ("DELETE", f"/groups/{GROUP}/participants", {"participants": ["15551234567"]}),
    ("POST", f"/groups/{GROUP}/picture", {"image_base64": JPEG_BASE64}),
    ("PUT", f"/groups/{GROUP}/ephemeral", {"duration_seconds": 86400}),
    ("GET", f"/groups/{GROUP}/invite", None),
    ("POST", f"/groups/{GROUP}/invite/reset", None),
    ("POST", "/groups/join", {"link": "https://chat.whatsapp.com/AbC"}),
    ("DELETE", f"/groups/{GROUP}/leave", None),
    ("POST", f"/groups/{GROUP}/community/link", {"group_jid": "120363000000000002@g.us"}),
    ("DELETE", f"/groups/{GROUP}/community/link", {"group_jid": "120363000000000002@g.us"}),
    ("GET", f"/groups/{GROUP}/requests", None),
    ("POST", f"/groups/{GROUP}/requests", {"action": "approve", "participants": ["15551234567"]}),
]
ROUTE_IDS = [f"{method} {path}" for method, path, _ in ROUTES]


@pytest.fixture(scope="module")
def tenant(api: Any) -> Any:
    return api.register()


@pytest.fixture(scope="module")
def idle_device(api: Any, tenant: Any) -> str:
    """A device that was never connected."""
    return create_device(api, tenant.admin_token)


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=ROUTE_IDS)
def test_a_device_that_is_not_connected_is_503_device_disconnected(
    api: Any, tenant: Any, idle_device: str, method: str, path: str, body: Any
) -> None:
    response = api.request(method, path, tenant.admin_token, json=body, headers={"X-Device-Id": idle_device})
    lowercase(response, 503, "device_disconnected")


def test_a_disconnected_device_is_503_and_so_is_one_that_dropped(api: Any, tenant: Any) -> None:
    device = connected_device(api, tenant.admin_token)
    assert device.ok(api, "GET", "/groups")["groups"] == []
    simulator(api, "POST", f"/devices/{device.device_id}/drop")
    wait_for_status(api, tenant.admin_token, device.device_id, "disconnected")
    lowercase(device.call(api, "GET", "/groups"), 503, "device_disconnected")
    wait_for_status(api, tenant.admin_token, device.device_id, "connected")
    response = api.request("POST", f"/devices/{device.device_id}/disconnect", tenant.admin_token)
    assert response.status_code == 200, response.text
    lowercase(
        device.call(api, "POST", "/groups", {"name": "x", "participants": []}), 503, "device_disconnected"
    )


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=ROUTE_IDS)
def test_the_device_of_the_request_is_refused_lowercase(
    api: Any, tenant: Any, method: str, path: str, body: Any
) -> None:
    # Given a user without a device, and one with two
    _, none_token = api.create_user(tenant, "user")
    _, two_token = api.create_user(tenant, "user")
    create_device(api, two_token)
    create_device(api, two_token)
    # Then no device is 404 device_not_found, two without X-Device-Id 400 device_id_required
    lowercase(api.request(method, path, none_token, json=body), 404, "device_not_found")
    lowercase(api.request(method, path, two_token, json=body), 400, "device_id_required")
    # And a device id nobody has is 404 as well
    unknown = {"X-Device-Id": "00000000-0000-4000-8000-000000000000"}
    lowercase(api.request(method, path, two_token, json=body, headers=unknown), 404, "device_not_found")


def test_a_body_that_is_not_json_is_invalid_request_but_authentication_comes_first(
    api: Any, tenant: Any, idle_device: str
) -> None:
    headers = {"X-Device-Id": idle_device, "Content-Type": "application/json"}
    response = api.request("POST", "/groups", tenant.admin_token, data="{not json", headers=headers)
    lowercase(response, 400, "invalid_request")
    response = api.request("POST", "/groups", tenant.admin_token, data="[1, 2]", headers=headers)
    lowercase(response, 400, "invalid_request")
    unauthenticated = api.request("POST", "/groups", None, data="{not json", headers=headers)
    assert (unauthenticated.status_code, unauthenticated.json()) == (401, {"error": "Invalid token"})
    assert api.request("GET", "/groups", "not-a-token").json() == {"error": "Invalid token"}


def test_a_field_that_does_not_validate_is_invalid_request(api: Any, tenant: Any, idle_device: str) -> None:
    headers = {"X-Device-Id": idle_device}
    for body in (
        {"participants": []},
        {"name": "x" * 101, "participants": []},
        {"name": "x", "participants": [1]},
    ):
        lowercase(
            api.request("POST", "/groups", tenant.admin_token, json=body, headers=headers),
            400,
            "invalid_request",
        )


def test_an_unknown_method_stays_standard_405(api: Any, tenant: Any, envelope: Any) -> None:
    envelope(api.request("PUT", "/groups", tenant.admin_token), 405, "METHOD_NOT_ALLOWED")


# --- the network failing ----------------------------------------------------------------


@pytest.fixture(scope="module")
def admin(api: Any, tenant: Any) -> Phone:
    return connected_device(api, tenant.admin_token)


def fault(api: Any, device: Phone, operation: str, error: str) -> None:
    simulator(api, "POST", "/faults", device_id=device.device_id, operation=operation, error=error)


def test_a_network_failure_is_502_with_the_operations_code(api: Any, admin: Phone) -> None:
    fault(api, admin, "create_group", "network")
    lowercase(admin.call(api, "POST", "/groups", {"name": "x", "participants": []}), 502, "create_failed")
    group = create_group(api, admin, "Then it works", [])["jid"]

    fault(api, admin, "update_group", "network")
    lowercase(admin.call(api, "PATCH", f"/groups/{group}", {"name": "y"}), 502, "update_failed")
    fault(api, admin, "group_invite", "network")
    lowercase(admin.call(api, "GET", f"/groups/{group}/invite"), 502, "invite_failed")
    fault(api, admin, "list_groups", "network")
    lowercase(admin.call(api, "GET", "/groups"), 502, "fetch_failed")


def test_a_network_timeout_is_504_operation_timeout(api: Any, admin: Phone) -> None:
    group = create_group(api, admin, "Slow", [])["jid"]
    fault(api, admin, "group_ephemeral", "timeout")
    body = lowercase(
        admin.call(api, "PUT", f"/groups/{group}/ephemeral", {"duration_seconds": 86400}),
        504,
        "operation_timeout",
    )
    assert "may or may not have been made" in body["error"]["message"]


def test_no_answer_from_the_session_host_in_time_is_504_operation_timeout(
    api: Any, admin: Phone, settings_override: Any
) -> None:
    # Given the API waiting 1 s for the session host, and the network holding the next
    # creation for longer (a timeout fault answers after 2 s)
    settings_override(COMMAND_TIMEOUT_SECONDS="1")
    fault(api, admin, "create_group", "timeout")
    # When the device creates a group, Then the API stops waiting: 504, the outcome unknown
    body = lowercase(
        admin.call(api, "POST", "/groups", {"name": "x", "participants": []}), 504, "operation_timeout"
    )
    assert "may or may not have been made" in body["error"]["message"]


def test_a_throttled_operation_is_429(api: Any, admin: Phone) -> None:
    fault(api, admin, "create_group", "rate_limited")
    lowercase(admin.call(api, "POST", "/groups", {"name": "x", "participants": []}), 429, "rate_limited")


# --- every route against each network failure -----------------------------------------------


@dataclass(frozen=True)
class Scene:
    """What every group route can act on: a group the device administers (with a contact in
    it), a community of its own with a linked child group and an unlinked one, and a
    contact's open group to join."""

    device: Phone
    group: str
    friend: str
    community: str
    child: str
    linked: str
    link: str


@pytest.fixture(scope="module")
def scene(api: Any, tenant: Any) -> Scene:
    device = connected_device(api, tenant.admin_token)
    friend = contact(api)
    group = create_group(api, device, "Faults", [friend.phone])["jid"]
    community = create_group(api, device, "Fault community", [], community=True)["jid"]
    child = create_group(api, device, "Fault child", [])["jid"]
    linked = create_group(api, device, "Linked child", [], parent_jid=community)["jid"]
    open_group = contact_group(api, friend, "Open", [])
    link = network_group(api, open_group)["invite_link"]
    return Scene(device, group, friend.jid, community, child, linked, link)


# (method, path, body, the bus command that runs it, its 502 code)
FAULT_ROUTES: list[tuple[str, str, Any, str, str]] = [
    ("POST", "/groups", {"name": "x", "participants": []}, "create_group", "create_failed"),
    ("GET", "/groups", None, "list_groups", "fetch_failed"),
    ("GET", "/groups/{group}", None, "group_info", "fetch_failed"),
    ("PATCH", "/groups/{group}", {"name": "y"}, "update_group", "update_failed"),
    (
        "POST",
        "/groups/{group}/participants",
        {"participants": ["{friend}"]},
        "group_participants",
        "update_failed",
    ),
    (
        "DELETE",
        "/groups/{group}/participants",
        {"participants": ["{friend}"]},
        "group_participants",
        "update_failed",
    ),
    ("POST", "/groups/{group}/picture", {"image_base64": JPEG_BASE64}, "group_picture", "update_failed"),
    ("PUT", "/groups/{group}/ephemeral", {"duration_seconds": 86400}, "group_ephemeral", "update_failed"),
    ("GET", "/groups/{group}/invite", None, "group_invite", "invite_failed"),
    ("POST", "/groups/{group}/invite/reset", None, "group_invite", "invite_failed"),
    ("POST", "/groups/join", {"link": "{link}"}, "join_group", "invite_failed"),
    ("DELETE", "/groups/{group}/leave", None, "leave_group", "update_failed"),
    ("POST", "/groups/{community}/community/link", {"group_jid": "{child}"}, "link_group", "update_failed"),
    (
        "DELETE",
        "/groups/{community}/community/link",
        {"group_jid": "{linked}"},
        "unlink_group",
        "update_failed",
    ),
    ("GET", "/groups/{group}/requests", None, "group_requests", "fetch_failed"),
    (
        "POST",
        "/groups/{group}/requests",
        {"action": "reject", "participants": ["{friend}"]},
        "answer_group_requests",
        "update_failed",
    ),
]


def aimed(scene: Scene, path: str, body: Any) -> tuple[str, Any]:
    """The route's path and body with the scene's JIDs and link in place of ``{names}``."""
    values = {name: value for name, value in vars(scene).items() if isinstance(value, str)}

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return value.format(**values)
        if isinstance(value, list):
            return [fill(item) for item in value]
        if isinstance(value, dict):
            return {key: fill(item) for key, item in value.items()}
        return value

    return fill(path), fill(body)


@pytest.mark.parametrize("error", ["network", "rate_limited"])
@pytest.mark.parametrize(
    ("method", "path", "body", "command", "failure"),
    FAULT_ROUTES,
    ids=[f"{r[0]} {r[1]}" for r in FAULT_ROUTES],
)
def test_every_route_answers_the_network_failing_it(
    api: Any, scene: Scene, method: str, path: str, body: Any, command: str, failure: str, error: str
) -> None:
    # Given the network failing the device's next operation of the route's command
    path, body = aimed(scene, path, body)
    before = network_group(api, scene.group)
    fault(api, scene.device, command, error)
    # When the route is called
    response = scene.device.call(api, method, path, body)
    # Then the failure's code: 502 with the operation's own, or 429; and nothing changed
    if error == "network":
        lowercase(response, 502, failure)
    else:
        lowercase(response, 429, "rate_limited")
    assert network_group(api, scene.group) == before
