"""Calls and the proxy per device end to end: POST /calls/{call_id}/reject, the device's
``reject_calls`` setting, and ``proxy_url`` applied from the next connect, over HTTP to the
simulated network and on to the webhook receiver, with the simulator playing the caller."""

from __future__ import annotations

from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator, wait_for_status
from waiting import wait_until

pytestmark = pytest.mark.e2e


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def connected_device(api: Any, tenant: Any, events: Any) -> tuple[str, str, str]:
    """A connected device subscribed to every event, and a contact: device id, its JID, the
    contact's phone."""
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    jid = pair_by_qr(api, tenant.admin_token, device_id, new_phone())["messaging_jid"]
    contact = new_phone()
    simulator(api, "POST", "/accounts", phone=contact)
    return device_id, jid, contact


def inbox(api: Any, phone: str) -> dict[str, Any]:
    return simulator(api, "GET", f"/accounts/{phone}/inbox")


# --- POST /calls/{call_id}/reject --------------------------------------------------------


def test_a_client_rejects_a_call_and_the_caller_sees_it(api: Any, tenant: Any, events: Any) -> None:
    # Given a connected device that a contact calls
    device_id, jid, contact = connected_device(api, tenant, events)
    call = simulator(api, "POST", f"/accounts/{contact}/calls", to=jid)
    (offer,) = events.wait_for(device_id, "call.offer")
    # When the client rejects it, naming the caller as call.offer did
    response = api.request(
        "POST",
        f"/calls/{call['call_id']}/reject",
        tenant.admin_token,
        json={"from": offer["data"]["from"]},
        headers={"X-Device-Id": device_id},
    )
    # Then the call is rejected, the caller's phone shows it, and call.reject (by api) follows
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "call_id": call["call_id"]}
    [shown] = inbox(api, contact)["calls"]
    assert (shown["call_id"], shown["to"], shown["status"]) == (call["call_id"], jid, "rejected")
    (rejected,) = events.wait_for(device_id, "call.reject")
    assert rejected["data"] | {"timestamp": None} == {
        "call_id": call["call_id"],
        "from": jid,
        "creator": offer["data"]["from"],
        "timestamp": None,
        "by": "api",
        "reply_message_id": None,
    }
    assert rejected["data"]["timestamp"]
    # And rejecting it again is 404 CALL_NOT_FOUND: it no longer rings
    again = api.request(
        "POST",
        f"/calls/{call['call_id']}/reject",
        tenant.admin_token,
        json={"from": contact},
        headers={"X-Device-Id": device_id},
    )
    assert again.status_code == 404, again.text
    assert again.json()["error_code"] == "CALL_NOT_FOUND"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 400, "MISSING_REQUIRED_FIELDS"),
        ({"from": "  "}, 400, "MISSING_REQUIRED_FIELDS"),
        ({"from": "not-a-person"}, 400, "VALIDATION_ERROR"),
        ({"from": "120363000000000001@g.us"}, 400, "VALIDATION_ERROR"),
    ],
)
def test_a_rejection_needs_the_caller(
    api: Any, tenant: Any, envelope: Any, body: Any, status: int, code: str
) -> None:
    # Given a device that never connected (the input is checked first)
    device_id = create_device(api, tenant.admin_token)
    response = api.request(
        "POST", "/calls/ABCD/reject", tenant.admin_token, json=body, headers={"X-Device-Id": device_id}
    )
    envelope(response, status, code)


def test_a_rejection_through_a_device_that_is_not_connected_is_503(
    api: Any, tenant: Any, envelope: Any
) -> None:
    device_id = create_device(api, tenant.admin_token)
    response = api.request(
        "POST",
        "/calls/ABCD/reject",
        tenant.admin_token,
        json={"from": "15551234567"},
        headers={"X-Device-Id": device_id},
    )
    envelope(response, 503, "DEVICE_NOT_READY")


# --- reject_calls -------------------------------------------------------------------------


def test_a_device_that_rejects_calls_answers_every_caller_with_its_text(
    api: Any, tenant: Any, events: Any
) -> None:
    # Given a connected device set to reject calls with a text
    device_id, jid, contact = connected_device(api, tenant, events)
    settings = {"reject_calls": True, "reject_calls_message": "No calls here, please write."}
    patched = api.request("PATCH", f"/devices/{device_id}", tenant.admin_token, json=settings)
    assert patched.status_code == 200, patched.text
    # When the contact calls it
    call = simulator(api, "POST", f"/accounts/{contact}/calls", to=jid)
    # Then the offer is followed by call.reject (by auto) naming the text sent to the caller
    (offer,) = events.wait_for(device_id, "call.offer")
    (rejected,) = events.wait_for(device_id, "call.reject")
    assert offer["data"]["call_id"] == rejected["data"]["call_id"] == call["call_id"]
    assert (rejected["data"]["by"], rejected["data"]["creator"]) == ("auto", offer["data"]["from"])
    # And the caller's phone shows the call rejected and got the text, from the device
    got = inbox(api, contact)
    assert [c["call_id"] for c in got["calls"] if c["status"] == "rejected"] == [call["call_id"]]
    [message] = [m for m in got["messages"] if m["from"] == jid]
    assert message["text"] == "No calls here, please write."
    assert message["message_id"] == rejected["data"]["reply_message_id"]


def test_calls_ring_once_rejection_is_off_and_without_a_text_nothing_is_sent(
    api: Any, tenant: Any, events: Any
) -> None:
    # Given a device that rejects calls without a text
    device_id, jid, contact = connected_device(api, tenant, events)
    path = f"/devices/{device_id}"
    api.request("PATCH", path, tenant.admin_token, json={"reject_calls": True})
    first = simulator(api, "POST", f"/accounts/{contact}/calls", to=jid)
    (rejected,) = events.wait_for(device_id, "call.reject")
    # Then the call was rejected and the caller got no message
    assert (rejected["data"]["call_id"], rejected["data"]["reply_message_id"]) == (first["call_id"], None)
    assert inbox(api, contact)["messages"] == []
    # When rejection is turned off and the contact calls again
    api.request("PATCH", path, tenant.admin_token, json={"reject_calls": False})
    second = simulator(api, "POST", f"/accounts/{contact}/calls", to=jid)
    events.wait_for(device_id, "call.offer", 2)
    # Then that call keeps ringing: the caller can still hang it up, and no second call.reject came
    simulator(api, "POST", f"/accounts/{contact}/calls/{second['call_id']}/terminate")
    events.wait_for(device_id, "call.terminate")
    assert len(events.wait_for(device_id, "call.reject")) == 1
    assert [c["call_id"] for c in inbox(api, contact)["calls"]] == [first["call_id"]]


# --- proxy_url ----------------------------------------------------------------------------


def test_the_proxy_applies_from_the_next_connect(api: Any, tenant: Any) -> None:
    # Given a connected device without a proxy
    device_id = create_device(api, tenant.admin_token)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    connection = f"/devices/{device_id}/connection"
    assert simulator(api, "GET", connection)["proxy_url"] is None
    # When a proxy with credentials is set
    proxy = {"proxy_url": "socks5://alice:s3cret@127.0.0.1:1080"}
    assert api.request("PATCH", f"/devices/{device_id}", tenant.admin_token, json=proxy).status_code == 200
    # Then the open connection keeps its way
    assert simulator(api, "GET", connection)["proxy_url"] is None
    # When the device disconnects and connects again
    api.request("POST", f"/devices/{device_id}/disconnect", tenant.admin_token)
    api.request("POST", f"/devices/{device_id}/connect", tenant.admin_token)
    wait_for_status(api, tenant.admin_token, device_id, "connected")
    # Then the network saw the new connection come through the proxy (shown without its password)
    shown = wait_until(lambda: simulator(api, "GET", connection), what="the connection")
    assert shown == {
        "success": True,
        "device_id": device_id,
        "connected": True,
        "proxy_url": "socks5://alice:***@127.0.0.1:1080",
    }
    # When the proxy is removed and the device reconnects, Then it connects directly again
    api.request("PATCH", f"/devices/{device_id}", tenant.admin_token, json={"proxy_url": None})
    api.request("POST", f"/devices/{device_id}/disconnect", tenant.admin_token)
    api.request("POST", f"/devices/{device_id}/connect", tenant.admin_token)
    wait_for_status(api, tenant.admin_token, device_id, "connected")
    assert simulator(api, "GET", connection)["proxy_url"] is None
