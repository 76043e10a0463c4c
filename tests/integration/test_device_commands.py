"""Device commands through the real path up to the session host: HTTP → devices function →
command bus (SQS on moto) → a stand-in host → reply → HTTP answer.

``FakeHost`` (``fake_host.py``) plays the session host per the bus contract; a test can
script any command of a device to fail with a given kind, or to get no answer at all.

Each test's device starts out run by the stand-in (its queue on the record), so commands
reach it on its own queue and never on the shared one, where a session host of the local
stack may read too. How a command for a device no host runs reaches the shared queue is
proven on the bus itself (``test_command_bus.py``).
"""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from fake_host import JID, QR_CODE, FakeHost, paired, record

from gateway.bus import CommandName
from gateway.bus.contracts.sessions import PairPhoneArgs
from gateway.config import get_settings
from local_stack.stack import LocalStack


@pytest.fixture(scope="module")
def host(stack: LocalStack) -> Iterator[FakeHost]:
    fake = FakeHost()
    yield fake
    fake.stop()


@pytest.fixture
def short_timeout(stack: LocalStack) -> Iterator[float]:
    """The API waits one second for a host's answer instead of ten."""
    saved = os.environ.get("COMMAND_TIMEOUT_SECONDS")
    os.environ["COMMAND_TIMEOUT_SECONDS"] = "1"
    get_settings.cache_clear()
    yield 1.0
    if saved is None:
        os.environ.pop("COMMAND_TIMEOUT_SECONDS", None)
    else:
        os.environ["COMMAND_TIMEOUT_SECONDS"] = saved
    get_settings.cache_clear()


def new_device(api: Any, token: str) -> dict[str, Any]:
    response = api.request("POST", "/devices", token, json={"name": "shop"})
    assert response.status_code == 201, response.text
    return response.json()["device"]


@pytest.fixture
def owner(api: Any, host: FakeHost) -> dict[str, Any]:
    """A tenant, a plain user of it, and the user's new device, run by the stand-in host."""
    tenant = api.register()
    _, token = api.create_user(tenant, "user")
    device = new_device(api, token)
    host.runs(device)
    return {"tenant": tenant, "token": token, "device": device}


# --- the happy path ----------------------------------------------------------------------


def test_connect_goes_to_the_devices_host_and_answers_with_its_state(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    # When the owner connects its new device
    response = api.request("POST", f"/devices/{device['id']}/connect", token)
    # Then 202 with the device as the host left it: pairing, waiting for a scan
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["success"] is True
    assert body["device"] == {**device, "status": "pairing"}
    assert "host_queue_url" not in response.text
    # And the host that runs the device got the command, naming the device and its tenant
    (command,) = [c for c in host.received if c.device_id == device["id"]]
    assert (command.name, command.tenant_id) == (CommandName.CONNECT, device["tenant_id"])
    # And the device reads back as pairing, wanted connected
    assert api.request("GET", f"/devices/{device['id']}", token).json()["device"]["status"] == "pairing"
    assert record(device["id"], device["tenant_id"]).wants_connection is True


def test_qr_answers_the_code_its_png_and_expiry(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    api.request("POST", f"/devices/{device['id']}/connect", token)
    # When the QR code is asked for
    response = api.request("GET", f"/devices/{device['id']}/qr", token)
    # Then the host's code, as text and as a PNG, with its expiry in ISO 8601 UTC
    assert response.status_code == 200, response.text
    assert host.commands_for(device["id"]) == [CommandName.CONNECT, CommandName.QR]
    data = response.json()
    assert set(data) == {"success", "qr_code", "qr_png_base64", "expires_at"}
    assert data["qr_code"] == QR_CODE
    assert base64.b64decode(data["qr_png_base64"]).startswith(b"\x89PNG\r\n\x1a\n")
    assert data["expires_at"].endswith("Z")
    expires = datetime.fromisoformat(data["expires_at"].replace("Z", "+00:00"))
    assert 0 < expires.timestamp() - time.time() <= 21


def test_pair_phone_returns_the_hosts_code(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    api.request("POST", f"/devices/{device['id']}/connect", token)
    # When a pair code is asked for a phone number
    response = api.request(
        "POST", f"/devices/{device['id']}/pair-phone", token, json={"phone": "15557654321"}
    )
    # Then the host's code comes back, and the host was given the phone
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "pair_code": "ABCD4321"}
    sent = [c for c in host.received if c.device_id == device["id"] and c.name is CommandName.PAIR_PHONE]
    assert sent[0].args == PairPhoneArgs(phone="15557654321")


def test_a_paired_device_refuses_qr_and_pair_phone_without_asking_the_host(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    # Given a device that connected and is paired
    paired(host, device["id"])
    connected = api.request("POST", f"/devices/{device['id']}/connect", token).json()["device"]
    assert (connected["status"], connected["messaging_jid"]) == ("connected", JID)
    # When the QR code or a pair code is asked for
    qr = api.request("GET", f"/devices/{device['id']}/qr", token)
    code = api.request("POST", f"/devices/{device['id']}/pair-phone", token, json={"phone": "15551234567"})
    # Then both are 409 ALREADY_LOGGED_IN, decided without a command
    for response in (qr, code):
        assert response.status_code == 409, response.text
        assert response.json()["error_code"] == "ALREADY_LOGGED_IN"
    assert host.commands_for(device["id"]) == [CommandName.CONNECT]


def test_disconnect_keeps_the_login_and_lets_the_device_go(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    paired(host, device["id"])
    api.request("POST", f"/devices/{device['id']}/connect", token)
    # When the device is disconnected
    response = api.request("POST", f"/devices/{device['id']}/disconnect", token)
    # Then it is disconnected and still logged in
    assert response.status_code == 200, response.text
    shown = response.json()["device"]
    assert (shown["status"], shown["is_connected"], shown["is_logged_in"]) == ("disconnected", False, True)
    # And no host runs it, and it will not be restored
    stored = record(device["id"], device["tenant_id"])
    assert (stored.host_queue_url, stored.wants_connection) == (None, False)


def test_logout_unlinks_the_device(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    paired(host, device["id"])
    api.request("POST", f"/devices/{device['id']}/connect", token)
    # When the device is logged out
    response = api.request("POST", f"/devices/{device['id']}/logout", token)
    # Then it is logged out, and must pair again
    assert response.status_code == 200, response.text
    shown = response.json()["device"]
    assert (shown["status"], shown["is_connected"], shown["is_logged_in"]) == ("logged_out", False, False)
    assert api.request("GET", f"/devices/{device['id']}", token).json()["device"]["status"] == "logged_out"


def test_deleting_arunning_device_stops_it_first(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    api.request("POST", f"/devices/{device['id']}/connect", token)
    # When the running device is deleted
    response = api.request("DELETE", f"/devices/{device['id']}", token)
    # Then its host was told to stop it, and the device is gone
    assert response.status_code == 200, response.text
    assert host.commands_for(device["id"])[-1] is CommandName.DELETE
    assert api.request("GET", f"/devices/{device['id']}", token).status_code == 404


# --- failures ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [
        ("network", 502, "NETWORK_ERROR"),
        ("timeout", 503, "SERVICE_UNAVAILABLE"),
        ("rate_limited", 429, "RATE_LIMITED"),
        ("unsupported", 501, "UNSUPPORTED_OPERATION"),
        ("not_found", 404, "NOT_FOUND"),
        ("host_error", 500, "DEVICE_ERROR"),
        ("not_running", 503, "DEVICE_NOT_READY"),
    ],
)
def test_a_hosts_failure_becomes_its_documented_error(api, host, owner, kind, status, code) -> None:
    device, token = owner["device"], owner["token"]
    # Given a host that fails the connect with this kind
    host.fail(device["id"], CommandName.CONNECT, kind, "what went wrong")
    # When the device is connected
    response = api.request("POST", f"/devices/{device['id']}/connect", token)
    # Then the standard envelope with the kind's status and code
    assert response.status_code == status, response.text
    body = response.json()
    assert (body["success"], body["error_code"]) == (False, code)
    assert body["error"]


def test_a_qr_code_asked_of_a_logged_in_device_is_409_already_logged_in(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    # Given a host that says the device is logged in already (only pairing can say so)
    host.fail(device["id"], CommandName.QR, "already_logged_in", "the device is paired")
    # When the QR code is asked for
    response = api.request("GET", f"/devices/{device['id']}/qr", token)
    # Then 409 ALREADY_LOGGED_IN
    assert response.status_code == 409, response.text
    assert response.json()["error_code"] == "ALREADY_LOGGED_IN"


def test_a_session_that_lost_its_connection_is_device_disconnected(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    # Given a host that says the device's session is not connected, its connection lost
    host.fail(device["id"], CommandName.QR, "not_connected", "the connection was lost", status="disconnected")
    # When the QR code is asked for
    response = api.request("GET", f"/devices/{device['id']}/qr", token)
    # Then 503 DEVICE_DISCONNECTED
    assert response.status_code == 503, response.text
    assert response.json()["error_code"] == "DEVICE_DISCONNECTED"


def test_a_phone_the_network_refuses_is_a_validation_error_on_phone(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    host.fail(device["id"], CommandName.PAIR_PHONE, "invalid", "no account uses this number")
    response = api.request(
        "POST", f"/devices/{device['id']}/pair-phone", token, json={"phone": "15550000000"}
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error_code"] == "VALIDATION_ERROR"
    assert body["validation"] == [
        {"field": "phone", "message": "no account uses this number", "value": "15550000000"}
    ]


def test_no_answer_from_the_host_is_503_service_unavailable(api, host, owner, short_timeout) -> None:
    device, token = owner["device"], owner["token"]
    # Given a host that takes the connect and never answers
    host.silence(device["id"], CommandName.CONNECT)
    # When the device is connected
    started = time.monotonic()
    response = api.request("POST", f"/devices/{device['id']}/connect", token)
    # Then 503 SERVICE_UNAVAILABLE once the (one second) deadline passed
    assert response.status_code == 503, response.text
    assert response.json()["error_code"] == "SERVICE_UNAVAILABLE"
    assert short_timeout <= time.monotonic() - started < short_timeout + 4


def test_delete_without_an_answer_leaves_the_device_in_place(api, host, owner, short_timeout) -> None:
    device, token = owner["device"], owner["token"]
    # Given a running device whose host stops answering
    api.request("POST", f"/devices/{device['id']}/connect", token)
    host.silence(device["id"], CommandName.DELETE)
    # When it is deleted
    response = api.request("DELETE", f"/devices/{device['id']}", token)
    # Then 503 SERVICE_UNAVAILABLE, and the device is still there, unchanged
    assert response.status_code == 503, response.text
    assert response.json()["error_code"] == "SERVICE_UNAVAILABLE"
    shown = api.request("GET", f"/devices/{device['id']}", token)
    assert shown.status_code == 200
    assert shown.json()["device"]["status"] == "pairing"


def test_delete_refused_by_the_host_leaves_the_device_in_place(api, host, owner) -> None:
    device, token = owner["device"], owner["token"]
    api.request("POST", f"/devices/{device['id']}/connect", token)
    host.fail(device["id"], CommandName.DELETE, "host_error", "disk full")
    response = api.request("DELETE", f"/devices/{device['id']}", token)
    assert response.status_code == 500, response.text
    assert response.json()["error_code"] == "DEVICE_ERROR"
    assert "disk full" not in response.text
    assert api.request("GET", f"/devices/{device['id']}", token).status_code == 200


# --- who may drive a device --------------------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "manager"])
def test_admin_and_manager_drive_a_users_device(api, host, owner, role) -> None:
    device, tenant = owner["device"], owner["tenant"]
    token = tenant.admin_token if role == "admin" else api.create_user(tenant, "manager")[1]
    response = api.request("POST", f"/devices/{device['id']}/connect", token)
    assert response.status_code == 202, response.text
    assert host.commands_for(device["id"]) == [CommandName.CONNECT]
