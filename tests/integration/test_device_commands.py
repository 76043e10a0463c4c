"""Device commands through the real path up to the session host: HTTP → devices function →
command bus (SQS on moto) → a stand-in host → reply → HTTP answer.

``FakeHost`` plays the session host per the bus contract: it holds the device's lease,
writes the device record as a host does (``host_queue_url``, ``wants_connection``, the
session fields) and replies. A test can script any command of a device to fail with a given
kind, or to get no answer at all.

Each test's device starts out run by the stand-in (its queue on the record), so commands
reach it on its own queue and never on the shared one, where a session host of the local
stack may read too. How a command for a device no host runs reaches the shared queue is
proven on the bus itself (``test_command_bus.py``).
"""

from __future__ import annotations

import base64
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest

from gateway import leases
from gateway.bus import Command, CommandName, DeviceSnapshot, Reply, queues
from gateway.config import get_settings
from gateway.models import DeviceModel
from local_stack.stack import LocalStack

QR_CODE = "2@fakecode,fakekey,fakeidentity,fakeadv"
JID = "15551234567@s.whatsapp.net"
LEASE_SECONDS = 600

Script = Callable[[Command, DeviceModel], Reply | None]


class FakeHost:
    """A session host stand-in on the local stack's SQS, following the command contract."""

    def __init__(self) -> None:
        self.host_id = uuid.uuid4().hex[:16]
        self.own_queue = queues.create_dynamic_queue(queues.HOST_QUEUE, self.host_id)
        self.received: list[Command] = []
        self.leases: dict[str, leases.Lease] = {}
        tenure = leases.begin(self.host_id, LEASE_SECONDS)
        assert tenure is not None
        self.tenure = tenure
        self.scripts: dict[tuple[str, CommandName], Script] = {}
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="fake-host", daemon=True)
        self._thread.start()

    def runs(self, device: dict[str, Any]) -> None:
        """Take the device as a host that runs its session: lease, and its queue on the record."""
        lease = leases.acquire(device["id"], device["tenant_id"], self.tenure, self.own_queue)
        assert lease is not None
        self.leases[device["id"]] = lease
        _write(record(device["id"], device["tenant_id"]), host_queue_url=self.own_queue)

    def script(self, device_id: str, name: CommandName, behaviour: Script) -> None:
        self.scripts[(device_id, name)] = behaviour

    def fail(
        self, device_id: str, name: CommandName, kind: str, message: str = "", status: str | None = None
    ) -> None:
        """Make ``name`` fail with ``kind``; the reply's snapshot says ``status`` when given."""

        def failure(command: Command, device: DeviceModel) -> Reply:
            snapshot = _snapshot(device, status=status) if status else None
            return Reply.failure(command, kind, message, snapshot)

        self.script(device_id, name, failure)

    def silence(self, device_id: str, name: CommandName) -> None:
        """Take ``name`` and never answer, as a host that hangs or died mid-way."""
        self.script(device_id, name, lambda _command, _device: None)

    def commands_for(self, device_id: str) -> list[CommandName]:
        return [command.name for command in self.received if command.device_id == device_id]

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)
        queues.delete_queue(self.own_queue)
        leases.end(self.tenure)

    def _serve(self) -> None:
        sqs = queues.sqs_client()
        while not self._stopped.is_set():
            response = sqs.receive_message(QueueUrl=self.own_queue, MaxNumberOfMessages=10, WaitTimeSeconds=1)
            for message in response.get("Messages", []):
                sqs.delete_message(QueueUrl=self.own_queue, ReceiptHandle=message["ReceiptHandle"])
                command = Command.from_json(message["Body"])
                if command.expired():  # the sender stopped waiting: never executed
                    continue
                self.received.append(command)
                try:
                    answer = self._answer(command)
                except Exception as error:  # a bug in the stand-in: answer as a failing host would
                    answer = Reply.failure(command, "host_error", repr(error), None)
                if answer is not None and command.reply_to:
                    sqs.send_message(QueueUrl=command.reply_to, MessageBody=answer.to_json())

    def _answer(self, command: Command) -> Reply | None:
        device = record(command.device_id, command.tenant_id)
        scripted = self.scripts.get((command.device_id, command.name))
        if scripted is not None:
            return scripted(command, device)
        return getattr(self, f"_{command.name.value}")(command, device)

    # --- the contract's default behaviour, for a device that pairs by QR code ----------------

    def _connect(self, command: Command, device: DeviceModel) -> Reply:
        status = "connected" if device.is_logged_in else "pairing"
        _write(device, status=status, is_connected=device.is_logged_in, **self.running)
        return Reply.success(command, {}, _snapshot(device))

    def _qr(self, command: Command, device: DeviceModel) -> Reply:
        return Reply.success(command, {"qr_code": QR_CODE, "expires_at": time.time() + 20}, _snapshot(device))

    def _pair_phone(self, command: Command, device: DeviceModel) -> Reply:
        code = "ABCD" + command.args["phone"][-4:]
        return Reply.success(command, {"pair_code": code}, _snapshot(device))

    def _disconnect(self, command: Command, device: DeviceModel) -> Reply:
        self._let_go(device, status="disconnected" if device.is_logged_in else "not_ready")
        return Reply.success(command, {}, _snapshot(device))

    def _logout(self, command: Command, device: DeviceModel) -> Reply:
        if not device.is_logged_in:
            return Reply.failure(command, "not_connected", "the device is not logged in", _snapshot(device))
        self._let_go(device, status="logged_out", is_logged_in=False)
        return Reply.success(command, {}, _snapshot(device))

    def _delete(self, command: Command, device: DeviceModel) -> Reply:
        self._let_go(device, is_logged_in=False)
        return Reply.success(command, {}, _snapshot(device))

    @property
    def running(self) -> dict[str, Any]:
        """The record fields of a device this host runs."""
        return {"host_queue_url": self.own_queue, "wants_connection": True}

    def _let_go(self, device: DeviceModel, **fields: Any) -> None:
        """Stop running the device: record fields, then the lease."""
        _write(device, is_connected=False, host_queue_url=None, wants_connection=False, **fields)
        lease = self.leases.pop(device.device_id, None)
        if lease is not None:
            leases.release(lease)


def _write(device: DeviceModel, **fields: Any) -> None:
    """Update the record as a host does: only while it exists, never re-creating it."""
    actions = [getattr(DeviceModel, name).set(value) for name, value in fields.items()]
    device.update(actions=actions, condition=DeviceModel.device_id.exists())


def _snapshot(device: DeviceModel, status: str | None = None) -> DeviceSnapshot:
    fields = (device.is_connected, device.is_logged_in, device.messaging_jid)
    return DeviceSnapshot(status or device.status, *fields)


def paired(host: FakeHost, device_id: str) -> None:
    """Script a phone scanning the QR code: the device's next connect finds it logged in."""

    def pair_on_connect(command: Command, device: DeviceModel) -> Reply:
        fields = {"status": "connected", "is_connected": True, "is_logged_in": True, "messaging_jid": JID}
        _write(device, **fields, **host.running)
        return Reply.success(command, {}, _snapshot(device))

    host.script(device_id, CommandName.CONNECT, pair_on_connect)


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


def record(device_id: str, tenant_id: str) -> DeviceModel:
    return DeviceModel.get(tenant_id, device_id, consistent_read=True)


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
    assert sent[0].args == {"phone": "15557654321"}


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
        ("already_logged_in", 409, "ALREADY_LOGGED_IN"),
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
