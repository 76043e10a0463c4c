"""Every error of a group route is in the lowercase envelope, those raised before the handler
runs included (validation, the device of the request); other routes keep the standard one.

The groups function's own app is driven in process, its device dependency replaced, so no
table or queue is involved; over HTTP on the local stack, tests/e2e/test_groups_*.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import APIRouter, Body
from fastapi.testclient import TestClient

from gateway.devices.access import device_not_found, only_device
from gateway.devices.dependencies import authenticated_device
from gateway.models import DeviceModel
from gateway.web import create_app
from gateway.web.operation_routes import OperationRoute

GROUP = "120363000000000001@g.us"


def disconnected_device() -> DeviceModel:
    return DeviceModel(
        "tenant-1",
        str(uuid.uuid4()),
        owner_user_id="owner",
        name="phone",
        status="disconnected",
        created_at="2026-01-01T00:00:00.000Z",
        updated_at="2026-01-01T00:00:00.000Z",
    )


@pytest.fixture
def client() -> Iterator[TestClient]:
    from groups_api.handler import app

    app.dependency_overrides[authenticated_device] = disconnected_device
    yield TestClient(app)
    app.dependency_overrides.clear()


def lowercase(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"success", "error"}, body
    assert body["success"] is False
    assert set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return body


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/groups", {"participants": []}),
        ("POST", "/groups", {"name": "x" * 101, "participants": []}),
        ("POST", "/groups", [1, 2]),
        ("POST", f"/groups/{GROUP}/participants", {"action": "kick", "participants": []}),
        ("PATCH", f"/groups/{GROUP}", {"member_add_mode": "everyone"}),
        ("PUT", f"/groups/{GROUP}/ephemeral", {"duration_seconds": "soon"}),
        ("POST", f"/groups/{GROUP}/requests", {"participants": []}),
        ("POST", f"/groups/{GROUP}/community/link", {}),
        ("POST", "/groups/join", {"invite_code": "has space"}),
        ("POST", "/groups", None),
    ],
    ids=[
        "no name",
        "long name",
        "not an object",
        "unknown action",
        "unknown mode",
        "timer not an integer",
        "no action",
        "no group_jid",
        "bad code",
        "no body",
    ],
)
def test_a_body_that_does_not_validate_is_invalid_request(
    client: TestClient, method: str, path: str, body: Any
) -> None:
    lowercase(client.request(method, path, json=body), 400, "invalid_request")


@pytest.mark.parametrize(
    ("method", "path", "body", "code"),
    [
        ("GET", "/groups/nope", None, "invalid_group_jid"),
        ("DELETE", "/groups/15551234567@s.whatsapp.net/leave", None, "invalid_group_jid"),
        ("POST", "/groups", {"name": "Trip", "participants": ["+1 555"]}, "invalid_participant"),
        ("POST", f"/groups/{GROUP}/picture", {"image_base64": "aGVsbG8="}, "invalid_image"),
        ("PUT", f"/groups/{GROUP}/ephemeral", {"duration_seconds": 3600}, "invalid_duration"),
        ("POST", "/groups/join", {"link": "https://example.com/x"}, "invalid_invite_link"),
        ("PATCH", f"/groups/{GROUP}", {"unknown": True}, "invalid_request"),
    ],
)
def test_bad_input_is_refused_with_its_code_before_the_device_status(
    client: TestClient, method: str, path: str, body: Any, code: str
) -> None:
    lowercase(client.request(method, path, json=body), 400, code)


def test_a_device_that_is_not_connected_is_503_device_disconnected(client: TestClient) -> None:
    body = lowercase(client.get("/groups"), 503, "device_disconnected")
    assert "disconnected" in body["error"]["message"]


@pytest.mark.parametrize(
    ("refusal", "status", "code"),
    [
        (device_not_found, 404, "device_not_found"),
        (lambda: only_device([disconnected_device(), disconnected_device()]), 400, "device_id_required"),
    ],
)
def test_the_device_rules_answer_lowercase(client: TestClient, refusal: Any, status: int, code: str) -> None:
    def refuse() -> DeviceModel:
        raise refusal()

    client.app.dependency_overrides[authenticated_device] = refuse  # type: ignore[attr-defined]
    lowercase(client.get(f"/groups/{GROUP}"), status, code)
    lowercase(client.post("/groups", json={"name": "Trip", "participants": []}), status, code)


def test_other_routes_keep_the_standard_envelope() -> None:
    # Given an app with an operation route and an ordinary one raising the same errors
    standard = APIRouter()
    operations = APIRouter(route_class=OperationRoute)

    @standard.post("/plain")
    def plain(name: str = Body(embed=True)) -> dict[str, str]:
        raise device_not_found()

    @operations.post("/operation")
    def operation(name: str = Body(embed=True)) -> dict[str, str]:
        raise device_not_found()

    client = TestClient(create_app(standard, operations))
    # When each gets a body that does not validate, and a valid one
    # Then the ordinary route answers standard codes, the operation route lowercase ones
    assert client.post("/plain", json={}).json()["error_code"] == "VALIDATION_ERROR"
    assert client.post("/plain", json={"name": "x"}).json()["error_code"] == "DEVICE_NOT_FOUND"
    lowercase(client.post("/operation", json={}), 400, "invalid_request")
    lowercase(client.post("/operation", json={"name": "x"}), 404, "device_not_found")


def test_a_body_over_the_limit_stays_standard_413(client: TestClient) -> None:
    from gateway.config import get_settings

    limit = get_settings().max_body_bytes
    response = client.post(
        "/groups", content=b"{" + b" " * limit + b"}", headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["error_code"] == "PAYLOAD_TOO_LARGE"
