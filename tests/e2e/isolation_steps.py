"""What the tenant isolation modules share: the route tables and the other tenant's ids.

The tables live here, apart from the tests that use them, so the guard in
``test_tenant_isolation.py`` sees every table (id routes, group routes) while each route
family keeps its own test module. A new tenant-scoped route with an id is covered by adding
one row here (and, for a new kind of id, one entry to ``OTHER_TENANT_IDS``).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from device_flows import new_phone, pair_by_qr, simulator
from group_flows import JPEG_BASE64

# (method, path template, body, error_code of the 404)
ID_ROUTES: list[tuple[str, str, dict[str, Any] | None, str]] = [
    ("GET", "/users/{user_id}", None, "USER_NOT_FOUND"),
    ("PUT", "/users/{user_id}", {"active": False}, "USER_NOT_FOUND"),
    ("PUT", "/users/{user_id}", {"role": "user"}, "USER_NOT_FOUND"),
    ("GET", "/devices/{device_id}", None, "DEVICE_NOT_FOUND"),
    ("PATCH", "/devices/{device_id}", {"min_send_interval_seconds": 5}, "DEVICE_NOT_FOUND"),
    ("DELETE", "/devices/{device_id}", None, "DEVICE_NOT_FOUND"),
    ("POST", "/devices/{device_id}/connect", None, "DEVICE_NOT_FOUND"),
    ("POST", "/devices/{device_id}/reconnect", None, "DEVICE_NOT_FOUND"),
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
    # Calls.
    ("POST", "/calls/{call_id}/reject", {"from": "{caller}"}, "CALL_NOT_FOUND"),
    # Reactions and edits.
    (
        "PATCH",
        "/messages/{message_id}",
        {"chat_jid": "15551234567", "text": "taken over"},
        "MESSAGE_NOT_FOUND",
    ),
    (
        "POST",
        "/messages/{message_id}/reaction",
        {"chat_jid": "15551234567", "emoji": "👍"},
        "MESSAGE_NOT_FOUND",
    ),
    # The outbox as a resource (issue 25).
    ("GET", "/sends/{message_id}", None, "MESSAGE_NOT_FOUND"),
    ("DELETE", "/sends/{message_id}", None, "MESSAGE_NOT_FOUND"),
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
    # Presence and profile of the linked account.
    ("PUT", "/presence", {"state": "available"}),
    ("GET", "/profile", None),
    ("PATCH", "/profile", {"about": "not mine"}),
    ("PUT", "/profile/picture", {"image_base64": JPEG_BASE64}),
    # The outbox as a resource (issue 25).
    ("GET", "/sends", None),
]

# Routes that name a person of the network in the path (a phone number, user JID or LID: no
# record of any tenant) and act through the X-Device-Id device: another tenant's device there is
# 404 DEVICE_NOT_FOUND. Checked as DEVICE_HEADER_ROUTES, with ``{jid}`` a phone number; their
# templates cover the guard of ``test_tenant_isolation.py``. (method, path template, body)
PERSON_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/contacts/check", {"numbers": ["15551234567"]}),
    ("GET", "/contacts/blocklist", None),
    ("GET", "/contacts/{jid}", None),
    ("PUT", "/contacts/{jid}/block", None),
    ("DELETE", "/contacts/{jid}/block", None),
    ("POST", "/contacts/{jid}/presence/subscribe", None),
]
DEVICE_HEADER_ROUTES += [
    (method, path.format(jid="15551234567"), body) for method, path, body in PERSON_ROUTES
]

# Routes that act through the caller's own device (the X-Device-Id rule): the caller gets one,
# so the 404 is about the id in the path and not about a missing device.
DEVICE_SCOPED = {
    "/webhook/deliveries/{event_id}/redeliver",
    "/messages/{message_id}",
    "/sends/{message_id}",  # issue 25
}
# ... and routes that need that device connected (the network is asked, and only it knows an id
# the gateway does not hold): the caller's device is paired first, so the 404 comes from the
# network, not a 503 from the device's status.
CONNECTED_DEVICE_SCOPED = {"/calls/{call_id}/reject", "/messages/{message_id}/reaction"}
CALLER = "15550001111"
"""The account that calls the other tenant's device (``{caller}`` in a row's body)."""

# path parameter -> how to get such an id in the *other* tenant: f(api, other_tenant) -> id
OTHER_TENANT_IDS: dict[str, Callable[[Any, Any], str]] = {
    "user_id": lambda api, other: api.create_user(other, "manager")[0],
    "device_id": lambda api, other: new_device(api, api.create_user(other, "user")[1]),
    "event_id": lambda api, other: logged_event(api, api.create_user(other, "user")[1]),
    "message_id": lambda api, other: sent_message(api, api.create_user(other, "user")[1]),
    "media_id": lambda api, other: stored_media(api, api.create_user(other, "user")[1]),
    "call_id": lambda api, other: ringing_call(api, api.create_user(other, "user")[1]),
}

# path parameter -> the same kind of id, but of the other tenant's admin (a second target)
OTHER_TENANT_ADMIN_IDS: dict[str, Callable[[Any, Any], str]] = {
    "user_id": lambda _api, other: other.admin_id,
    "device_id": lambda api, other: new_device(api, other.admin_token),
    "event_id": lambda api, other: logged_event(api, other.admin_token),
    "message_id": lambda api, other: sent_message(api, other.admin_token),
    "media_id": lambda api, other: stored_media(api, other.admin_token),
    "call_id": lambda api, other: ringing_call(api, other.admin_token),
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
    send = outbox.new_send(
        device["tenant_id"], device["id"], chat_jid="15551234567@s.whatsapp.net", text="hi"
    )
    outbox.store(send)
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


def connected_device(api: Any, token: str) -> str:
    """A new device of ``token``'s user, paired and connected on the simulated network."""
    device_id = new_device(api, token)
    pair_by_qr(api, token, device_id, new_phone())
    return device_id


def ringing_call(api: Any, token: str) -> str:
    """The id of a call :data:`CALLER` makes to a new connected device of ``token``'s user,
    ringing still."""
    device_id = connected_device(api, token)
    jid = api.request("GET", f"/devices/{device_id}", token).json()["device"]["messaging_jid"]
    api.request(
        "POST", "/_simulator/accounts", api.master_token, json={"phone": CALLER}
    )  # 409 once it exists
    return str(simulator(api, "POST", f"/accounts/{CALLER}/calls", to=jid)["call_id"])


def tenant_records(api: Any, tenant: Any) -> dict[str, list[dict[str, Any]]]:
    """Everything of a tenant that an id route could change, as its admin reads it."""
    users = api.request("GET", "/users", tenant.admin_token).json()["users"]
    return {
        "users": [
            api.request("GET", f"/users/{user['id']}", tenant.admin_token).json()["user"] for user in users
        ],
        "devices": api.request("GET", "/devices", tenant.admin_token).json()["devices"],
    }
