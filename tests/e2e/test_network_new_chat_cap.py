"""The simulated network's own new-chat cap over HTTP on the local stack
(``PUT /_simulator/devices/{device_id}/new_chat_cap``): beyond its limit the network refuses the
device's sends to new chats (463 reachout timelock), while chats the device has keep working.

The new chat never gets the message while the cap is in force, the known chat does, and the
gateway keeps the refused send for the end of the lock (the pause itself is proven in
test_sending_policy.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from device_flows import simulator
from group_flows import Phone, connected_device, contact
from waiting import wait_until

pytestmark = pytest.mark.e2e


def texts_at(api: Any, person: Phone) -> list[str]:
    return [
        message["text"] for message in simulator(api, "GET", f"/accounts/{person.phone}/inbox")["messages"]
    ]


def planned(api: Any, device: Phone, to: Phone, text: str, seconds_ahead: float) -> str:
    """A text planned a moment ahead (answered 202 at once, whatever the network says later)."""
    send_at = (datetime.now(UTC) + timedelta(seconds=seconds_ahead)).isoformat()
    body = {"number": to.phone, "text": text, "send_at": send_at, "disablePresence": True}
    return str(device.ok(api, "POST", "/send/text", body, status=202)["message_id"])


def test_the_cap_refuses_a_new_chat_beyond_its_limit_and_not_a_known_one(api: Any) -> None:
    # Given a connected device that heard from one person, and two people it never talked to
    device = connected_device(api, api.register().admin_token)
    known, first, second = contact(api, "Known"), contact(api, "First"), contact(api, "Second")
    simulator(api, "POST", f"/accounts/{known.phone}/messages", to=device.jid, text="hello")

    # When the network caps the device's new chats at one, locking them for an hour
    cap = simulator(api, "PUT", f"/devices/{device.device_id}/new_chat_cap", limit=1, lock_seconds=3600)
    assert cap["new_chat_cap"] == {"limit": 1, "lock_seconds": 3600, "new_chats": 0, "locked_until": None}

    # And the device sends to both new people, then to the known one, in that order
    planned(api, device, first, "first new chat", 1.0)
    refused_id = planned(api, device, second, "second new chat", 1.5)
    planned(api, device, known, "known chat", 2.0)

    # Then the first new chat and the known chat get theirs
    wait_until(lambda: "known chat" in texts_at(api, known), 20, what="the known chat's message")
    wait_until(lambda: "first new chat" in texts_at(api, first), 5, what="the first new chat's message")

    # And the network locked new chats at the second, which never got its message
    locked = simulator(api, "GET", f"/devices/{device.device_id}/new_chat_cap")["new_chat_cap"]
    assert locked["new_chats"] == 1
    assert locked["locked_until"] is not None
    assert "second new chat" not in texts_at(api, second)
    refused = device.ok(api, "GET", f"/sends/{refused_id}")
    assert refused["state"] == "scheduled"
    assert refused["scheduled_for"] == locked["locked_until"]

    # When the cap is lifted, then the network no longer caps the device
    lifted = simulator(api, "DELETE", f"/devices/{device.device_id}/new_chat_cap")
    assert lifted == {"success": True, "device_id": device.device_id, "new_chat_cap": None}


def test_the_cap_of_a_device_the_network_never_saw_is_not_found(api: Any) -> None:
    response = api.request(
        "PUT",
        "/_simulator/devices/no-such-device/new_chat_cap",
        api.master_token,
        json={"limit": 1, "lock_seconds": 60},
    )
    assert response.status_code == 404, response.text
    assert response.json()["error_code"] == "DEVICE_NOT_FOUND"
