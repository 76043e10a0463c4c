"""Device commands against a stand-in bus: what is sent, and how each answer becomes HTTP."""

from __future__ import annotations

import base64
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from stand_in_bus import StandInBus, install

from gateway.bus import BusTimeout, CommandName, DeviceSnapshot, Reply
from gateway.devices import commands
from gateway.errors import ApiError
from gateway.models import DeviceModel


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> StandInBus:
    return install(monkeypatch, commands)


def device(**fields: Any) -> DeviceModel:
    values: dict[str, Any] = {
        "owner_user_id": "owner",
        "name": "phone",
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
        **fields,
    }
    return DeviceModel("tenant-1", str(uuid.uuid4()), **values)


def ok(result: dict[str, Any] | None = None, snapshot: DeviceSnapshot | None = None) -> Reply:
    return Reply(command_id="c", ok=True, result=result or {}, device=snapshot)


def test_connect_goes_to_the_host_on_the_record_and_shows_the_hosts_view(bus: StandInBus) -> None:
    # Given a device run by a host, and the host's answer that it is pairing
    target = device(host_queue_url="https://sqs.local/q-h-1")
    bus.answer = ok(snapshot=DeviceSnapshot("pairing", False, False, None))
    # When it is connected
    view = commands.connect(target)
    # Then the command names the device and goes to that host's queue
    assert bus.sent == [
        {
            "name": CommandName.CONNECT,
            "tenant_id": "tenant-1",
            "device_id": target.device_id,
            "host_queue_url": "https://sqs.local/q-h-1",
            "args": {},
        }
    ]
    # And the device shows the host's state over the record's
    assert (view["id"], view["status"], view["name"]) == (target.device_id, "pairing", "phone")


def test_qr_answer_carries_a_png_and_an_iso_expiry(bus: StandInBus) -> None:
    # Given a host that shows a QR code expiring at a known time
    expires = datetime(2026, 5, 1, 12, 0, 30, 250000, tzinfo=UTC).timestamp()
    bus.answer = ok({"qr_code": "2@abc,def,ghi", "expires_at": expires})
    # When the QR code is asked for
    answer = commands.qr(device())
    # Then the code, its PNG and its expiry in ISO 8601 UTC come back
    assert answer["qr_code"] == "2@abc,def,ghi"
    assert base64.b64decode(answer["qr_png_base64"]).startswith(b"\x89PNG\r\n\x1a\n")
    assert answer["expires_at"] == "2026-05-01T12:00:30.250Z"


@pytest.mark.parametrize("ask", [commands.qr, lambda d: commands.pair_phone(d, "15551234567")])
def test_pairing_a_paired_device_is_409_without_asking_the_host(bus: StandInBus, ask: Any) -> None:
    # Given a device whose record says it is logged in
    with pytest.raises(ApiError) as refused:
        ask(device(is_logged_in=True, status="connected"))
    # Then 409 ALREADY_LOGGED_IN and no command
    assert (refused.value.status, refused.value.code) == (409, "ALREADY_LOGGED_IN")
    assert bus.sent == []


def test_pair_phone_sends_the_phone_and_returns_the_code(bus: StandInBus) -> None:
    bus.answer = ok({"pair_code": "ABCD-1234"})
    assert commands.pair_phone(device(), "15551234567") == "ABCD-1234"
    assert bus.sent[0]["args"] == {"phone": "15551234567"}


@pytest.mark.parametrize("result", [{}, {"qr_code": "x"}, {"qr_code": "x", "expires_at": "soon"}])
def test_an_incomplete_qr_answer_is_a_device_error(bus: StandInBus, result: dict[str, Any]) -> None:
    # Given a host whose QR result is out of the QR contract
    bus.answer = ok(result)
    with pytest.raises(ApiError) as error:
        commands.qr(device())
    # Then it is the failure table's incomplete answer, not the host's failure nor a 500 trace
    assert (error.value.status, error.value.code) == (500, "DEVICE_ERROR")
    assert "incomplete answer" in error.value.message


def test_no_answer_in_time_is_503_service_unavailable(bus: StandInBus) -> None:
    bus.answer = BusTimeout("no answer")
    with pytest.raises(ApiError) as error:
        commands.disconnect(device())
    assert (error.value.status, error.value.code) == (503, "SERVICE_UNAVAILABLE")


@pytest.mark.parametrize(
    ("fields", "sends"),
    [
        ({}, False),
        ({"host_queue_url": "https://sqs.local/q-h-1"}, True),
        ({"is_logged_in": True}, True),
    ],
    ids=["never connected", "run by a host", "logged in, no host"],
)
def test_deleting_asks_a_host_only_when_there_is_a_session_to_stop(
    bus: StandInBus, fields: dict[str, Any], sends: bool
) -> None:
    bus.answer = ok()
    commands.stop_for_deletion(device(**fields))
    assert [sent["name"] for sent in bus.sent] == ([CommandName.DELETE] if sends else [])
