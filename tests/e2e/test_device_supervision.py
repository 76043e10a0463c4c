"""Supervised sessions end to end: a device that cannot reach the network keeps trying, says so
over HTTP (``last_error``, ``reconnect_at``) and by webhooks (``connection.failure`` per failed
attempt), and comes back by itself; POST /devices/{id}/reconnect starts the next attempt now.

The test stack's first retry is 0.3 s and its dial deadline 2 s (``tests/conftest.py``)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator, wait_for_status

pytestmark = pytest.mark.e2e


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


@pytest.fixture
def paired_device(api: Any, tenant: Any, events: Any) -> str:
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    return device_id


def _device(api: Any, token: str, device_id: str) -> dict[str, Any]:
    response = api.request("GET", f"/devices/{device_id}", token)
    assert response.status_code == 200, response.text
    return response.json()["device"]


def _wait_for_device(
    api: Any, token: str, device_id: str, ready: Any, timeout: float = 10.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        device = _device(api, token, device_id)
        if ready(device):
            return device
        assert time.monotonic() < deadline, f"device never got there: {device}"
        time.sleep(0.05)


def test_a_dropped_device_that_cannot_reconnect_keeps_trying_and_comes_back(
    api: Any, tenant: Any, events: Any, paired_device: str
) -> None:
    device_id, token = paired_device, tenant.admin_token
    # Given a network that refuses the device's next three dials
    simulator(api, "POST", "/faults", device_id=device_id, operation="connect", error="refused", count=3)

    # When the network drops it
    simulator(api, "POST", f"/devices/{device_id}/drop")

    # Then while it fails the device shows why and when it tries next
    failing = _wait_for_device(api, token, device_id, lambda d: d["last_error"] is not None)
    assert failing["status"] == "disconnected"
    assert failing["last_error"]["code"] == "dial_error"
    assert failing["last_error"]["message"]
    # and each failed attempt is a webhook with its number and the time of the next one
    failures = events.wait_for(device_id, "connection.failure", count=3)
    assert sorted(f["data"]["attempt"] for f in failures) == [1, 2, 3]  # deliveries may overtake
    for failure in failures:
        assert failure["data"]["reason"] == "dial_error"
        assert failure["data"]["permanent"] is False
        assert failure["data"]["reconnect_at"].endswith("Z")
    # and once the network lets it through, it is connected again with nothing left to report
    events.wait_for(device_id, "device.connected", count=2)
    back = _wait_for_device(api, token, device_id, lambda d: d["status"] == "connected")
    assert back["last_error"] is None
    assert back["reconnect_at"] is None


def test_a_dial_nobody_answers_is_given_up_at_the_deadline_and_retried(
    api: Any, tenant: Any, events: Any, paired_device: str
) -> None:
    device_id, token = paired_device, tenant.admin_token
    # Given a network that never answers the device's next dial
    simulator(api, "POST", "/faults", device_id=device_id, operation="connect", error="hang")

    # When the network drops it
    simulator(api, "POST", f"/devices/{device_id}/drop")

    # Then at the dial deadline the attempt is reported as a timeout, and the next one connects
    (failure,) = events.wait_for(device_id, "connection.failure", timeout=15)
    assert failure["data"]["reason"] == "timeout"
    assert failure["data"]["attempt"] == 1
    events.wait_for(device_id, "device.connected", count=2, timeout=15)
    wait_for_status(api, token, device_id, "connected")


def test_reconnect_starts_the_next_attempt_now(
    api: Any, tenant: Any, events: Any, paired_device: str
) -> None:
    device_id, token = paired_device, tenant.admin_token
    # Given a connected device: there is nothing to reconnect
    conflict = api.request("POST", f"/devices/{device_id}/reconnect", token)
    assert conflict.status_code == 409, conflict.text
    assert conflict.json()["error_code"] == "CONFLICT"

    # And given it was dropped and failed enough times to wait a while before its next attempt
    simulator(api, "POST", "/faults", device_id=device_id, operation="connect", error="refused", count=6)
    simulator(api, "POST", f"/devices/{device_id}/drop")
    events.wait_for(device_id, "connection.failure", count=6, timeout=30)
    waiting = _wait_for_device(api, token, device_id, lambda d: d["reconnect_at"] is not None)
    assert waiting["status"] == "disconnected"

    # When the user asks for a reconnect
    started = time.monotonic()
    response = api.request("POST", f"/devices/{device_id}/reconnect", token)

    # Then it is accepted, announced, and the device is connected well before its backoff ran out
    assert response.status_code == 202, response.text
    assert response.json()["device"]["id"] == device_id
    events.wait_for(device_id, "connection.manual_reconnect")
    wait_for_status(api, token, device_id, "connected")
    assert time.monotonic() - started < 5


def test_reconnect_of_a_device_never_paired_is_a_conflict(api: Any, tenant: Any) -> None:
    device_id = create_device(api, tenant.admin_token)
    response = api.request("POST", f"/devices/{device_id}/reconnect", tenant.admin_token)
    assert response.status_code == 409, response.text
    assert response.json()["error_code"] == "CONFLICT"
    assert _device(api, tenant.admin_token, device_id)["status"] == "not_ready"


def test_a_first_connect_the_network_refuses_is_retried_until_the_qr_code_shows(
    api: Any, tenant: Any, events: Any
) -> None:
    # Given a new device and a network that refuses its first two dials
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    simulator(api, "POST", "/faults", device_id=device_id, operation="connect", error="refused", count=2)

    # When it connects
    response = api.request("POST", f"/devices/{device_id}/connect", tenant.admin_token)

    # Then the connect is accepted, the device never shows pairing before it has a code, and
    # after two reported failures it pairs
    assert response.status_code == 202, response.text
    assert response.json()["device"]["status"] == "not_ready"
    events.wait_for(device_id, "connection.failure", count=2)
    wait_for_status(api, tenant.admin_token, device_id, "pairing")
    qr = api.request("GET", f"/devices/{device_id}/qr", tenant.admin_token)
    assert qr.status_code == 200, qr.text


def test_the_qr_code_of_a_device_still_dialing_is_not_there_yet_and_says_why(api: Any, tenant: Any) -> None:
    # Given a new device whose dials the network keeps refusing
    device_id = create_device(api, tenant.admin_token)
    simulator(api, "POST", "/faults", device_id=device_id, operation="connect", error="refused", count=100)
    assert api.request("POST", f"/devices/{device_id}/connect", tenant.admin_token).status_code == 202

    # When its QR code is asked for
    qr = api.request("GET", f"/devices/{device_id}/qr", tenant.admin_token)

    # Then it is not there yet, and the answer says the device is still reaching the network
    # (not that it should be connected: it was)
    assert qr.status_code == 503, qr.text
    assert qr.json()["error_code"] == "SERVICE_UNAVAILABLE"
    assert "still reaching the network" in qr.json()["error"]
    device = _device(api, tenant.admin_token, device_id)
    assert device["status"] == "not_ready"
    assert device["last_error"]["code"] == "dial_error"
