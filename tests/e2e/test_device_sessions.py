"""Device sessions end to end: HTTP → devices function → command bus → session host →
simulated network → events queue → webhook delivery → a receiver on loopback, with the
simulator's control API playing the phones."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator, wait_for_status

pytestmark = pytest.mark.e2e


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def test_qr_pairing_connects_the_device_and_status_lists_it(api: Any, tenant: Any, events: Any) -> None:
    # Given a new device whose webhook takes every event
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    phone = new_phone()

    # When it connects, shows a QR code and a phone scans it
    connect = api.request("POST", f"/devices/{device_id}/connect", tenant.admin_token)
    assert connect.status_code == 202, connect.text
    assert connect.json()["device"]["id"] == device_id
    wait_for_status(api, tenant.admin_token, device_id, "pairing")
    qr = api.request("GET", f"/devices/{device_id}/qr", tenant.admin_token).json()
    assert qr["success"] is True
    assert qr["qr_code"]
    assert qr["qr_png_base64"]
    assert qr["expires_at"]
    scanned = simulator(api, "POST", f"/devices/{device_id}/scan", phone=phone)

    # Then the device is connected as that account, and GET /status lists it
    device = wait_for_status(api, tenant.admin_token, device_id, "connected")
    assert device["messaging_jid"] == scanned["jid"]
    assert device["messaging_jid"].startswith(phone + "@")
    assert device["is_connected"] is True
    assert device["is_logged_in"] is True
    status = api.request("GET", "/status", tenant.admin_token).json()
    assert {
        "id": device_id,
        "name": "sales phone",
        "status": "connected",
        "is_connected": True,
        "is_logged_in": True,
        "messaging_jid": scanned["jid"],
    } in status["devices"]

    # And its webhook receives qr.generated, pair.success and device.connected envelopes
    (qr_event,) = events.wait_for(device_id, "qr.generated")
    assert qr_event["data"]["qr_code"] == qr["qr_code"]
    events.wait_for(device_id, "pair.success")
    (connected,) = events.wait_for(device_id, "device.connected")
    assert connected["data"] == {
        "device_id": device_id,
        "status": "connected",
        "messaging_jid": scanned["jid"],
        "is_connected": True,
        "is_logged_in": True,
    }
    assert set(connected) == {"id", "event", "timestamp", "device_id", "data"}
    assert isinstance(connected["timestamp"], int)
    assert abs(connected["timestamp"] - time.time()) < 60


def test_pair_code_pairing(api: Any, tenant: Any) -> None:
    # Given a device whose session is started
    device_id = create_device(api, tenant.admin_token)
    assert api.request("POST", f"/devices/{device_id}/connect", tenant.admin_token).status_code == 202
    phone = new_phone()

    # When the user asks for a pair code and the phone enters it
    response = api.request(
        "POST", f"/devices/{device_id}/pair-phone", tenant.admin_token, json={"phone": phone}
    )
    assert response.status_code == 200, response.text
    simulator(api, "POST", "/pair-code", phone=phone, code=response.json()["pair_code"])

    # Then the device is connected as that phone's account
    device = wait_for_status(api, tenant.admin_token, device_id, "connected")
    assert device["messaging_jid"].startswith(phone + "@")


def test_messages_and_receipts_reach_the_webhook(api: Any, tenant: Any, events: Any) -> None:
    # Given a connected device and a contact
    device_phone, contact_phone = new_phone(), new_phone()
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    device = pair_by_qr(api, tenant.admin_token, device_id, device_phone)
    contact = simulator(api, "POST", "/accounts", phone=contact_phone)

    # When the contact writes to the device's account
    sent = simulator(
        api, "POST", f"/accounts/{contact_phone}/messages", to=device["messaging_jid"], text="hi"
    )

    # Then message.received carries the documented payload
    (received,) = events.wait_for(device_id, "message.received")
    data = received["data"]
    assert data["message_id"] == sent["message_id"]
    assert (data["from"], data["to"], data["content"]) == (contact["jid"], device["messaging_jid"], "hi")
    assert data["message_type"] == "text"
    assert data["is_from_me"] is False
    assert {"push_name", "timestamp"} <= set(data)

    # When the account (from its phone) writes to the contact, who then reads it
    own = simulator(api, "POST", f"/accounts/{device_phone}/messages", to=contact["jid"], text="hello")
    simulator(
        api,
        "POST",
        f"/accounts/{contact_phone}/read",
        chat=device["messaging_jid"],
        message_ids=[own["message_id"]],
    )

    # Then the device reports delivered and read receipts for it
    (delivered,) = events.wait_for(device_id, "message.delivered")
    assert delivered["data"]["message_ids"] == [own["message_id"]]
    assert delivered["data"]["chat_jid"] == contact["jid"]
    assert delivered["data"]["message_count"] == 1
    assert delivered["data"]["gateway_message_ids"] == []  # sent from the phone, not the gateway
    assert delivered["data"]["is_group"] is False
    assert {"receipt_type", "delivered_at"} <= set(delivered["data"])
    (read,) = events.wait_for(device_id, "message.read")
    assert read["data"]["message_ids"] == [own["message_id"]]


def test_connection_loss_is_reported_and_recovered(api: Any, tenant: Any, events: Any) -> None:
    # Given a connected device
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())

    # When the network drops its connection
    simulator(api, "POST", f"/devices/{device_id}/drop")

    # Then device.disconnected is published and the session reconnects by itself
    events.wait_for(device_id, "device.disconnected")
    events.wait_for(device_id, "device.connected", count=2)
    wait_for_status(api, tenant.admin_token, device_id, "connected")


def test_logout_unlinks_and_needs_pairing_again(
    api: Any, tenant: Any, events: Any, envelope: Callable[..., dict[str, Any]]
) -> None:
    # Given a connected device
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())

    # When the user logs it out
    response = api.request("POST", f"/devices/{device_id}/logout", tenant.admin_token)

    # Then it is logged out, the event says so, and pairing operations need a new session
    assert response.status_code == 200, response.text
    assert response.json()["device"]["status"] == "logged_out"
    assert response.json()["device"]["is_logged_in"] is False
    events.wait_for(device_id, "device.logged_out")
    envelope(api.request("GET", f"/devices/{device_id}/qr", tenant.admin_token), 503, "DEVICE_NOT_READY")


def test_disconnect_keeps_the_login_and_connect_resumes_without_pairing(api: Any, tenant: Any) -> None:
    # Given a connected device
    device_id = create_device(api, tenant.admin_token)
    jid = pair_by_qr(api, tenant.admin_token, device_id, new_phone())["messaging_jid"]

    # When the user disconnects it
    response = api.request("POST", f"/devices/{device_id}/disconnect", tenant.admin_token)
    assert response.status_code == 200, response.text
    assert response.json()["device"]["status"] == "disconnected"
    assert response.json()["device"]["is_logged_in"] is True

    # Then connect brings it back as the same account, with no QR code
    assert api.request("POST", f"/devices/{device_id}/connect", tenant.admin_token).status_code == 202
    device = wait_for_status(api, tenant.admin_token, device_id, "connected")
    assert device["messaging_jid"] == jid


def test_session_operations_on_a_device_that_is_not_running(
    api: Any, tenant: Any, envelope: Callable[..., dict[str, Any]]
) -> None:
    # Given a device that was never connected
    device_id = create_device(api, tenant.admin_token)

    # Then the pairing operations answer 503 DEVICE_NOT_READY
    envelope(api.request("GET", f"/devices/{device_id}/qr", tenant.admin_token), 503, "DEVICE_NOT_READY")
    response = api.request(
        "POST", f"/devices/{device_id}/pair-phone", tenant.admin_token, json={"phone": new_phone()}
    )
    envelope(response, 503, "DEVICE_NOT_READY")


def test_qr_of_a_paired_device_is_a_conflict(
    api: Any, tenant: Any, envelope: Callable[..., dict[str, Any]]
) -> None:
    device_id = create_device(api, tenant.admin_token)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    envelope(api.request("GET", f"/devices/{device_id}/qr", tenant.admin_token), 409, "ALREADY_LOGGED_IN")


def test_delete_of_a_connected_device_unlinks_it(api: Any, tenant: Any, stack: Any) -> None:
    # Given a connected device
    device_id = create_device(api, tenant.admin_token)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())

    # When it is deleted
    response = api.request("DELETE", f"/devices/{device_id}", tenant.admin_token)

    # Then it is gone, and the network no longer has it linked or connected
    assert response.status_code == 200, response.text
    assert api.request("GET", f"/devices/{device_id}", tenant.admin_token).status_code == 404
    assert stack.network.linked_jid(device_id) is None
    assert stack.network.connection_count(device_id) == 0


def test_deleting_a_tenant_stops_and_unlinks_its_sessions(api: Any, tenant: Any, stack: Any) -> None:
    # Given a tenant with a connected device
    device_id = create_device(api, tenant.admin_token)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())

    # When the platform deletes the tenant
    response = api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token)

    # Then the device's session is stopped and unlinked, and no host runs it any more
    assert response.status_code == 200, response.text
    assert response.json()["deleted"]["devices"] == 1
    assert stack.network.connection_count(device_id) == 0
    assert stack.network.linked_jid(device_id) is None
    assert all(device_id not in host.owned_devices() for host in stack.hosts)


def test_presence_typing_names_and_calls_reach_the_webhook(api: Any, tenant: Any, events: Any) -> None:
    # Given a connected device subscribed to every event, and a contact
    device_phone, contact_phone = new_phone(), new_phone()
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    jid = pair_by_qr(api, tenant.admin_token, device_id, device_phone)["messaging_jid"]
    contact = simulator(api, "POST", "/accounts", phone=contact_phone, name="Ana")

    # When the contact writes, comes online, types, calls and hangs up, renames itself and
    # writes again (the network tells a device about a new name with the next message)
    simulator(api, "POST", f"/accounts/{contact_phone}/messages", to=jid, text="hello")
    simulator(api, "POST", f"/accounts/{contact_phone}/presence", to=jid, available=True)
    simulator(api, "POST", f"/accounts/{contact_phone}/typing", to=jid, state="composing")
    call = simulator(api, "POST", f"/accounts/{contact_phone}/calls", to=jid)
    simulator(api, "POST", f"/accounts/{contact_phone}/calls/{call['call_id']}/terminate")
    simulator(api, "POST", f"/accounts/{contact_phone}/name", name="Ana B.")
    simulator(api, "POST", f"/accounts/{contact_phone}/messages", to=jid, text="new name")

    # Then each reaches the receiver as its catalog event, about that contact
    (presence,) = events.wait_for(device_id, "contact.presence")
    (typing,) = events.wait_for(device_id, "chat.presence")
    (offer,) = events.wait_for(device_id, "call.offer")
    (ended,) = events.wait_for(device_id, "call.terminate")
    (renamed,) = events.wait_for(device_id, "contact.pushname")
    assert contact["jid"] in json.dumps(presence["data"])
    assert contact["jid"] in json.dumps(typing["data"])
    assert offer["data"]["call_id"] == ended["data"]["call_id"] == call["call_id"]
    assert offer["data"]["from"] == contact["jid"]
    assert "Ana B." in json.dumps(renamed["data"])
