"""The contact routes end to end: HTTP → messages function → command bus → session host →
simulated network, where accounts have names, About texts and LIDs, and a blocked account's
messages never reach the device; the webhook receives ``privacy.blocklist``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator

pytestmark = pytest.mark.e2e

Envelope = Callable[..., dict[str, Any]]


@dataclass
class Device:
    """A tenant's connected device, and the account it is linked to."""

    token: str
    device_id: str
    phone: str
    jid: str

    def call(self, api: Any, method: str, path: str, body: Any = None) -> Any:
        return api.request(method, path, self.token, json=body, headers={"X-Device-Id": self.device_id})


@pytest.fixture
def device(api: Any) -> Device:
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token)
    phone = new_phone()
    connected = pair_by_qr(api, tenant.admin_token, device_id, phone)
    return Device(tenant.admin_token, device_id, phone, connected["messaging_jid"])


def account(api: Any, name: str | None = None) -> dict[str, Any]:
    """A new account on the network: ``{jid, lid, phone, name}``."""
    return simulator(api, "POST", "/accounts", phone=new_phone(), name=name)


def test_a_check_tells_which_numbers_are_on_the_network(api: Any, device: Device) -> None:
    # Given two accounts, and a number nobody has
    ann, bob, nobody = account(api), account(api), new_phone()
    # When the device checks them, Ann twice
    numbers = [ann["phone"], nobody, bob["phone"], ann["phone"]]
    response = device.call(api, "POST", "/contacts/check", {"numbers": numbers})
    # Then one answer per number, in order, with the JID to write to and the LID
    assert response.status_code == 200, response.text
    assert response.json() == {
        "success": True,
        "results": [
            {"number": ann["phone"], "on_network": True, "jid": ann["jid"], "lid": ann["lid"]},
            {"number": nobody, "on_network": False, "jid": None, "lid": None},
            {"number": bob["phone"], "on_network": True, "jid": bob["jid"], "lid": bob["lid"]},
        ],
    }


def test_a_contact_is_found_by_digits_jid_or_lid_with_its_name_and_about(
    api: Any, device: Device, envelope: Envelope
) -> None:
    # Given an account that set its name and About text on its phone
    ann = account(api, "Ann")
    changed = simulator(api, "PATCH", f"/accounts/{ann['phone']}", name="Ann B.", about="At the gym")
    assert (changed["name"], changed["about"], changed["lid"]) == ("Ann B.", "At the gym", ann["lid"])
    expected = {
        "jid": ann["jid"],
        "lid": ann["lid"],
        "name": "Ann B.",
        "about": "At the gym",
        "picture_url": None,
        "is_business": False,
    }
    # When the device looks her up by phone digits, user JID and LID
    for key in (ann["phone"], ann["jid"], ann["lid"]):
        response = device.call(api, "GET", f"/contacts/{key}")
        # Then each answers both identities and her profile
        assert response.status_code == 200, response.text
        assert response.json() == {"success": True, "contact": expected}
    # And once she clears her About text, it reads null
    simulator(api, "PATCH", f"/accounts/{ann['phone']}", about=None)
    cleared = device.call(api, "GET", f"/contacts/{ann['lid']}").json()["contact"]
    assert (cleared["name"], cleared["about"]) == ("Ann B.", None)
    # And a number or LID without an account is 404 CONTACT_NOT_FOUND; no person is 400
    envelope(device.call(api, "GET", f"/contacts/{new_phone()}"), 404, "CONTACT_NOT_FOUND")
    envelope(device.call(api, "GET", "/contacts/123456789012345@lid"), 404, "CONTACT_NOT_FOUND")
    for bad in ("not-a-jid", "120363000000000001@g.us", "+15551234567"):
        envelope(device.call(api, "GET", f"/contacts/{bad}"), 400, "VALIDATION_ERROR")


def test_a_blocked_account_reaches_the_device_no_more(api: Any, device: Device, events: Any) -> None:
    # Given an account that writes to the device, whose events go to a webhook receiver
    events.subscribe(api, device.token, device.device_id)
    bob = account(api, "Bob")
    assert device.call(api, "GET", "/contacts/blocklist").json() == {"success": True, "jids": []}

    # When the device blocks him, by phone digits
    response = device.call(api, "PUT", f"/contacts/{bob['phone']}/block")

    # Then he is blocked, the blocklist names him, and privacy.blocklist arrives
    assert response.json() == {"success": True, "jid": bob["jid"], "blocked": True}
    assert device.call(api, "GET", "/contacts/blocklist").json()["jids"] == [bob["jid"]]
    (blocked,) = events.wait_for(device.device_id, "privacy.blocklist")
    assert blocked["data"] == {"changes": [{"jid": bob["jid"], "action": "block"}], "refresh_needed": False}

    # When he writes, then the device unblocks him (by LID) and he writes again
    simulator(api, "POST", f"/accounts/{bob['phone']}/messages", to=device.jid, text="while blocked")
    unblocked = device.call(api, "DELETE", f"/contacts/{bob['lid']}/block")
    assert unblocked.json() == {"success": True, "jid": bob["lid"], "blocked": False}
    simulator(api, "POST", f"/accounts/{bob['phone']}/messages", to=device.jid, text="after")

    # Then only the message sent while not blocked reached the device; his other one stayed "sent"
    (received,) = events.wait_for(device.device_id, "message.received")
    assert received["data"]["content"] == "after"
    events.wait_for(device.device_id, "privacy.blocklist", 2)
    assert [e["data"]["content"] for e in events.of(device.device_id, "message.received")] == ["after"]
    inbox = simulator(api, "GET", f"/accounts/{device.phone}/inbox")["messages"]
    assert [m["text"] for m in inbox] == ["after"]
    sent = {
        entry["text"]: entry["status"]
        for entry in simulator(api, "GET", f"/accounts/{bob['phone']}/inbox")["sent"]
    }
    assert sent["while blocked"] == "sent"
    assert device.call(api, "GET", "/contacts/blocklist").json()["jids"] == []


def test_blocking_refuses_nobody_and_the_devices_own_account(
    api: Any, device: Device, envelope: Envelope
) -> None:
    envelope(device.call(api, "PUT", f"/contacts/{new_phone()}/block"), 404, "CONTACT_NOT_FOUND")
    envelope(device.call(api, "PUT", f"/contacts/{device.jid}/block"), 400, "VALIDATION_ERROR")
    envelope(device.call(api, "DELETE", "/contacts/bob/block"), 400, "VALIDATION_ERROR")
    assert device.call(api, "GET", "/contacts/blocklist").json()["jids"] == []


def test_a_check_refuses_bad_lists_before_asking(api: Any, device: Device, envelope: Envelope) -> None:
    for body in (
        {},
        {"numbers": []},
        {"numbers": ["+15551234567"]},
        {"numbers": ["0155512345"]},
        {"numbers": [new_phone() for _ in range(51)]},
        {"numbers": "15551234567"},
    ):
        envelope(device.call(api, "POST", "/contacts/check", body), 400, "VALIDATION_ERROR")


def test_network_failures_and_a_device_not_connected(api: Any, device: Device, envelope: Envelope) -> None:
    ann = account(api)
    # Given the network fails the device's next check and lookup
    for operation in ("check_numbers", "get_contact", "block", "get_blocklist"):
        simulator(api, "POST", "/faults", device_id=device.device_id, operation=operation, error="network")
    # Then each is 502 NETWORK_ERROR
    envelope(device.call(api, "POST", "/contacts/check", {"numbers": [ann["phone"]]}), 502, "NETWORK_ERROR")
    envelope(device.call(api, "GET", f"/contacts/{ann['jid']}"), 502, "NETWORK_ERROR")
    envelope(device.call(api, "PUT", f"/contacts/{ann['jid']}/block"), 502, "NETWORK_ERROR")
    envelope(device.call(api, "GET", "/contacts/blocklist"), 502, "NETWORK_ERROR")
    # And a device that is not connected is 503 DEVICE_NOT_READY on every route, nothing asked
    idle = Device(device.token, create_device(api, device.token), "", "")
    for method, path, body in (
        ("POST", "/contacts/check", {"numbers": [ann["phone"]]}),
        ("GET", f"/contacts/{ann['jid']}", None),
        ("PUT", f"/contacts/{ann['jid']}/block", None),
        ("DELETE", f"/contacts/{ann['jid']}/block", None),
        ("GET", "/contacts/blocklist", None),
    ):
        envelope(idle.call(api, method, path, body), 503, "DEVICE_NOT_READY")


def test_the_simulator_changes_only_accounts_it_has(api: Any, envelope: Envelope) -> None:
    ann = account(api)

    def patch(phone: str, body: Any) -> Any:
        return api.request("PATCH", f"/_simulator/accounts/{phone}", api.master_token, json=body)

    envelope(patch(new_phone(), {"name": "Nobody"}), 404, "ACCOUNT_NOT_FOUND")
    for body in ({}, {"name": None}, {"name": ""}, {"about": "x" * 140}):
        envelope(patch(ann["phone"], body), 400, "VALIDATION_ERROR")
