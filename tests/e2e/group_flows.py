"""Steps of the group end-to-end tests: connected devices, group requests through a device,
the lowercase envelope, and the simulated network's side (its record of a group, other phones)."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import requests
from device_flows import create_device, new_phone, pair_by_qr, simulator

JPEG_BASE64 = base64.b64encode(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(64) + b"\xff\xd9").decode()
UNKNOWN_GROUP = "120363999999999999@g.us"


@dataclass(frozen=True)
class Phone:
    """A connected gateway device, or a simulated contact (``device_id`` None)."""

    phone: str
    jid: str
    token: str | None = None
    device_id: str | None = None

    def call(self, api: Any, method: str, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        """A request through this device: its token and ``X-Device-Id``."""
        assert self.token is not None, "a contact has no gateway device"
        assert self.device_id is not None
        headers = {"X-Device-Id": self.device_id, **kwargs.pop("headers", {})}
        return api.request(method, path, self.token, json=json, headers=headers, **kwargs)

    def ok(self, api: Any, method: str, path: str, json: Any = None, status: int = 200) -> dict[str, Any]:
        response = self.call(api, method, path, json)
        assert response.status_code == status, response.text
        body = response.json()
        assert body["success"] is True, body
        return body


def connected_device(api: Any, token: str, phone: str | None = None) -> Phone:
    """A new device of ``token``'s user, paired as a new phone (or ``phone``) and connected."""
    device_id = create_device(api, token)
    phone = phone or new_phone()
    device = pair_by_qr(api, token, device_id, phone)
    return Phone(phone, device["messaging_jid"], token, device_id)


def watched_device(api: Any, events: Any) -> Phone:
    """A connected device, the only one of a new tenant, whose webhook collects its events."""
    tenant = api.register()
    device = connected_device(api, tenant.admin_token)
    assert device.device_id is not None
    events.subscribe(api, tenant.admin_token, device.device_id)
    return device


def contact(api: Any, name: str = "Ana") -> Phone:
    """A simulated account of the network that is no gateway device."""
    phone = new_phone()
    account = simulator(api, "POST", "/accounts", phone=phone, name=name)
    return Phone(phone, account["jid"])


def network_group(api: Any, jid: str) -> dict[str, Any]:
    """The simulated network's own record of the group."""
    return simulator(api, "GET", f"/groups/{jid}")["group"]


def contact_group(api: Any, owner: Phone, name: str, participants: list[str], **options: Any) -> str:
    """A group ``owner`` (a contact) creates on the network; its JID."""
    body: dict[str, Any] = {"name": name, "participants": participants}
    if options:
        body["options"] = options
    return simulator(api, "POST", f"/accounts/{owner.phone}/groups", **body)["jid"]


def create_group(
    api: Any, device: Phone, name: str, participants: list[str], **options: Any
) -> dict[str, Any]:
    """POST /groups through ``device``; the created group."""
    body: dict[str, Any] = {"name": name, "participants": participants, "options": options}
    return device.ok(api, "POST", "/groups", body, status=201)["group"]


def lowercase(response: requests.Response, status: int, code: str) -> dict[str, Any]:
    """Assert the lowercase envelope ``{success: false, error: {code, message}}``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"success", "error"}, body
    assert body["success"] is False, body
    assert set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str), body
    assert body["error"]["message"], body
    assert "Traceback" not in response.text
    return body


def member(group: dict[str, Any], jid: str) -> dict[str, Any] | None:
    return next((p for p in group["participants"] if p["jid"] == jid), None)
