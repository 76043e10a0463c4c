"""Presence and the linked account's profile over HTTP on the local stack (simulated network):
a followed contact's presence reaches the webhook as ``contact.presence``, one device's
presence reaches another device following its account, the profile set through the API is
what the network's other accounts see, and each documented error answers as documented."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest
from device_flows import simulator
from group_flows import Phone, connected_device, contact

pytestmark = pytest.mark.e2e

JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(64))
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def account(api: Any, phone: Phone) -> dict[str, Any]:
    """The network's account as other accounts see it."""
    return simulator(api, "GET", f"/accounts/{phone.phone}")["account"]


def test_a_followed_contacts_presence_reaches_the_webhook(api: Any, tenant: Any, events: Any) -> None:
    # Given a connected device subscribed to every event, and two contacts
    device = connected_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device.device_id)
    ana, ben = contact(api, "Ana"), contact(api, "Ben")
    # When the device shows itself online and follows Ana by phone number
    assert device.ok(api, "PUT", "/presence", {"state": "available"}) == {
        "success": True,
        "state": "available",
    }
    followed = device.ok(api, "POST", f"/contacts/{ana.phone}/presence/subscribe")
    assert followed == {"success": True, "jid": ana.jid}
    # And Ben (not followed) and then Ana come online, and Ana goes offline
    simulator(api, "POST", f"/accounts/{ben.phone}/presence", available=True)
    simulator(api, "POST", f"/accounts/{ana.phone}/presence", available=True)
    simulator(api, "POST", f"/accounts/{ana.phone}/presence", available=False)
    # Then the device got Ana's two changes (webhooks may arrive in either order), and nothing
    # of Ben's
    changes = events.wait_for(device.device_id, "contact.presence", count=2)
    online, offline = sorted((event["data"] for event in changes), key=lambda data: not data["available"])
    assert online == {"jid": ana.jid, "available": True, "last_seen": None}
    assert (offline["jid"], offline["available"]) == (ana.jid, False)
    assert offline["last_seen"] is not None
    assert all(e["data"]["jid"] == ana.jid for e in events.of(device.device_id, "contact.presence"))


def test_one_devices_presence_reaches_a_device_following_its_account(
    api: Any, tenant: Any, events: Any
) -> None:
    # Given two connected devices; the second follows the first's account by JID
    first = connected_device(api, tenant.admin_token)
    second = connected_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, second.device_id)
    second.ok(api, "POST", f"/contacts/{first.jid}/presence/subscribe")
    # When the first device goes online
    first.ok(api, "PUT", "/presence", {"state": "available"})
    # Then the second gets contact.presence about it, and the network shows it online
    (presence,) = events.wait_for(second.device_id, "contact.presence")
    assert presence["data"] == {"jid": first.jid, "available": True, "last_seen": None}
    assert account(api, first)["available"] is True


def test_the_profile_set_through_the_api_is_what_others_see(api: Any, tenant: Any) -> None:
    # Given a connected device, whose account has no profile yet
    device = connected_device(api, tenant.admin_token)
    empty = {"jid": device.jid, "name": None, "about": None, "picture_url": None}
    assert device.ok(api, "GET", "/profile") == {"success": True, "profile": empty}
    # When it sets its About text alone, then its name (surrounding spaces removed)
    about = device.ok(api, "PATCH", "/profile", {"about": "Answering 9-17"})
    assert about["profile"] == {**empty, "about": "Answering 9-17"}
    named = device.ok(api, "PATCH", "/profile", {"name": "  Acme Support "})
    assert named["profile"] == {**empty, "name": "Acme Support", "about": "Answering 9-17"}
    # And a picture
    picture = device.ok(api, "PUT", "/profile/picture", {"image_base64": b64(JPEG)})
    assert set(picture) == {"success", "picture_id"}
    # Then GET answers all of it, the picture with a URL
    profile = device.ok(api, "GET", "/profile")["profile"]
    assert (profile["name"], profile["about"]) == ("Acme Support", "Answering 9-17")
    assert picture["picture_id"] in profile["picture_url"]
    # And the network's other accounts see the same, the picture's bytes included
    seen = account(api, device)
    assert (seen["name"], seen["about"], seen["picture_url"]) == (
        "Acme Support",
        "Answering 9-17",
        profile["picture_url"],
    )
    assert seen["picture"]["sha256"] == hashlib.sha256(JPEG).hexdigest()
    # And a contact gets the new name on the device's next message
    ana = contact(api, "Ana")
    device.ok(api, "POST", "/send/text", {"number": ana.phone, "text": "hi", "disablePresence": True})
    inbox = simulator(api, "GET", f"/accounts/{ana.phone}/inbox")["messages"]
    assert [m["push_name"] for m in inbox if m["from"] == device.jid] == ["Acme Support"]


def test_documented_errors(api: Any, tenant: Any, envelope: Any) -> None:
    device = connected_device(api, tenant.admin_token)
    # Bad input: 400 VALIDATION_ERROR, nothing changed
    for method, path, body in (
        ("PUT", "/presence", {"state": "away"}),
        ("PATCH", "/profile", {}),
        ("PATCH", "/profile", {"name": "   "}),
        ("PATCH", "/profile", {"name": "n" * 26}),
        ("PATCH", "/profile", {"about": "a" * 140}),
        ("PUT", "/profile/picture", {"image_base64": b64(PNG)}),
        ("PUT", "/profile/picture", {"image_base64": "not base64!"}),
        ("POST", "/contacts/120363000000000001@g.us/presence/subscribe", None),
        ("POST", "/contacts/not-a-person/presence/subscribe", None),
    ):
        envelope(device.call(api, method, path, body), 400, "VALIDATION_ERROR")
    assert account(api, device)["about"] is None
    # A picture over the inline media limit: 413
    huge = b64(JPEG + bytes(4 * 1024 * 1024))
    envelope(device.call(api, "PUT", "/profile/picture", {"image_base64": huge}), 413, "PAYLOAD_TOO_LARGE")
    # A failure of the network: the standard answer of its kind
    simulator(api, "POST", "/faults", device_id=device.device_id, operation="set_about", error="network")
    envelope(device.call(api, "PATCH", "/profile", {"about": "x"}), 502, "NETWORK_ERROR")
    # A device that is not connected: 503, nothing sent
    device.ok(api, "POST", f"/devices/{device.device_id}/disconnect")
    for method, path, body in (
        ("PUT", "/presence", {"state": "available"}),
        ("POST", f"/contacts/{device.phone}/presence/subscribe", None),
        ("GET", "/profile", None),
        ("PATCH", "/profile", {"about": "offline"}),
        ("PUT", "/profile/picture", {"image_base64": b64(JPEG)}),
    ):
        envelope(device.call(api, method, path, body), 503, "DEVICE_DISCONNECTED")
    assert account(api, device)["about"] is None
