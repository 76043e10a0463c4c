"""Steps of the device flows that several end-to-end modules share."""

from __future__ import annotations

import random
import time
from typing import Any


def new_phone() -> str:
    return "49" + "".join(random.choices("0123456789", k=10))


def wait_for_status(
    api: Any, token: str, device_id: str, status: str, timeout: float = 10.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        device = api.request("GET", f"/devices/{device_id}", token).json()["device"]
        if device["status"] == status:
            return device
        assert time.monotonic() < deadline, f"device stayed {device['status']}, expected {status}"
        time.sleep(0.05)


def simulator(api: Any, method: str, path: str, **body: Any) -> dict[str, Any]:
    response = api.request(method, f"/_simulator{path}", api.master_token, json=body or None)
    assert response.status_code in (200, 201), response.text
    return response.json()


def create_device(api: Any, token: str, name: str = "sales phone") -> str:
    response = api.request("POST", "/devices", token, json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()["device"]["id"]


def subscribe(
    api: Any, token: str, device_id: str, url: str, enabled_events: list[str] | None = None, **config: Any
) -> dict[str, Any]:
    """POST /webhook for the device, to every event of GET /webhook/events unless told otherwise."""
    if enabled_events is None:
        enabled_events = api.request("GET", "/webhook/events", token).json()["events"]
    body = {"webhook_url": url, "enabled_events": enabled_events, **config}
    response = api.request("POST", "/webhook", token, json=body, headers={"X-Device-Id": device_id})
    assert response.status_code in (200, 201), response.text
    return response.json()["webhook"]


def pair_by_qr(api: Any, token: str, device_id: str, phone: str) -> dict[str, Any]:
    """connect → QR → the phone scans it → connected; returns the connected device."""
    response = api.request("POST", f"/devices/{device_id}/connect", token)
    assert response.status_code == 202, response.text
    wait_for_status(api, token, device_id, "pairing")
    qr = api.request("GET", f"/devices/{device_id}/qr", token)
    assert qr.status_code == 200, qr.text
    simulator(api, "POST", f"/devices/{device_id}/scan", phone=phone)
    return wait_for_status(api, token, device_id, "connected")
