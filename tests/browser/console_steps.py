"""Steps the browser tests share: driving the console by role and name as a person would,
and setting up through the API what a test is not about."""

from __future__ import annotations

import random
import time
from typing import Any

from playwright.sync_api import Locator, Page, expect


def new_phone() -> str:
    return "49" + "".join(random.choices("0123456789", k=10))


def create_device(page: Page, name: str) -> None:
    page.get_by_label("New device name").fill(name)
    page.get_by_role("button", name="Create device").click()
    expect(page.get_by_role("heading", name=name, level=2)).to_be_visible()


def device_status(page: Page) -> Locator:
    return page.get_by_test_id("device-status")


def give_master_token(page: Page, token: str) -> None:
    page.get_by_label("Master token").fill(token)
    page.get_by_role("button", name="Use master token").click()
    expect(page.get_by_role("button", name="Scan QR code")).to_be_visible()


def simulator(api: Any, method: str, path: str, **body: Any) -> dict[str, Any]:
    response = api.request(method, f"/_simulator{path}", api.master_token, json=body or None)
    assert response.status_code in (200, 201), response.text
    return response.json()


def paired_device(api: Any, token: str, name: str, phone: str) -> str:
    """A device paired through the API (connect, the phone scans): its id."""
    response = api.request("POST", "/devices", token, json={"name": name})
    assert response.status_code == 201, response.text
    device_id = response.json()["device"]["id"]
    assert api.request("POST", f"/devices/{device_id}/connect", token).status_code == 202
    wait_for_status(api, token, device_id, "pairing")
    simulator(api, "POST", f"/devices/{device_id}/scan", phone=phone)
    wait_for_status(api, token, device_id, "connected")
    return device_id


def wait_for_status(api: Any, token: str, device_id: str, status: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        device = api.request("GET", f"/devices/{device_id}", token).json()["device"]
        if device["status"] == status:
            return
        assert time.monotonic() < deadline, f"device stayed {device['status']}, expected {status}"
        time.sleep(0.05)
