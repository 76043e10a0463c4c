"""The device's public shapes and the validation of the device request bodies."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gateway import clock
from gateway.bus import DeviceSnapshot
from gateway.devices.schemas import CreateDeviceRequest, PairPhoneRequest
from gateway.devices.sending_policy import utc_day
from gateway.devices.store import new_device
from gateway.devices.views import device_summary, device_view

NOW = "2026-01-01T00:00:00.000Z"


def test_view_shows_the_documented_fields_and_never_the_routing_ones() -> None:
    # Given a device a host runs
    device = new_device("tenant-1", "owner-1", "Desk", NOW)
    device.host_queue_url = "https://sqs.local/123/gw-dq-h-abc"
    device.wants_connection = True
    # When it is shown
    view = device_view(device)
    # Then exactly the documented fields appear
    assert view == {
        "id": device.device_id,
        "tenant_id": "tenant-1",
        "owner_user_id": "owner-1",
        "name": "Desk",
        "status": "not_ready",
        "is_connected": False,
        "is_logged_in": False,
        "messaging_jid": None,
        "min_send_interval_seconds": 0,
        "reject_calls": False,
        "reject_calls_message": None,
        "daily_send_limit": None,
        "new_chat_daily_limit": None,
        "warmup_days": 0,
        "send_jitter_seconds": 0,
        "sending_paused_until": None,
        "usage_today": {
            "day": utc_day(clock.now()),
            "sent": 0,
            "new_chats": 0,
            "daily_limit": None,
            "new_chat_limit": None,
        },
        "proxy_url": None,
        "last_error": None,
        "reconnect_at": None,
        "created_at": NOW,
        "updated_at": NOW,
    }


def test_view_shows_the_proxy_without_its_password() -> None:
    # Given a device whose connection goes through a proxy with credentials
    device = new_device("tenant-1", "owner-1", "Desk", NOW)
    device.proxy_url = "socks5://alice:s3cr%40t@proxy.example.com:1080"
    # When it is shown
    view = device_view(device)
    # Then the user name and the address show, the password never does
    assert view["proxy_url"] == "socks5://alice:***@proxy.example.com:1080"
    assert "s3cr" not in str(view)


def test_view_shows_the_last_error_and_the_next_attempt() -> None:
    # Given a device whose session failed to reach the network and retries later
    device = new_device("tenant-1", "owner-1", "Desk", NOW)
    device.last_error_code, device.last_error_message = "dial_error", "dial tcp: connection refused"
    device.last_error_at, device.reconnect_at = NOW, "2026-01-01T00:00:04.000Z"
    # When it is shown
    view = device_view(device)
    # Then the failure and the next attempt appear as one object and a time
    assert view["last_error"] == {"code": "dial_error", "message": "dial tcp: connection refused", "at": NOW}
    assert view["reconnect_at"] == "2026-01-01T00:00:04.000Z"


def test_the_hosts_snapshot_wins_over_the_record() -> None:
    device = new_device("tenant-1", "owner-1", "Desk", NOW)
    view = device_view(device, DeviceSnapshot("connected", True, True, "15551234567@s.whatsapp.net"))
    assert (view["status"], view["is_connected"], view["is_logged_in"], view["messaging_jid"]) == (
        "connected",
        True,
        True,
        "15551234567@s.whatsapp.net",
    )
    assert view["name"] == "Desk"


def test_summary_is_the_status_routes_short_form() -> None:
    device = new_device("tenant-1", "owner-1", None, NOW)
    assert device_summary(device) == {
        "id": device.device_id,
        "name": f"Device {device.device_id[:8]}",
        "status": "not_ready",
        "is_connected": False,
        "is_logged_in": False,
        "messaging_jid": None,
    }


@pytest.mark.parametrize(
    ("name", "stored"), [(" a ", "a"), ("x" * 100, "x" * 100), (None, None), ("  x" + " " * 200, "x")]
)
def test_names_are_stripped_before_their_length_is_checked(name: str | None, stored: str | None) -> None:
    assert CreateDeviceRequest(name=name).name == stored


@pytest.mark.parametrize("name", ["", "  ", "x" * 101])
def test_empty_or_long_names_are_refused(name: str) -> None:
    with pytest.raises(ValidationError):
        CreateDeviceRequest(name=name)


@pytest.mark.parametrize("phone", ["1555123", "15551234567", "447911123456", "123456789012345"])
def test_plain_phone_numbers_are_accepted(phone: str) -> None:
    assert PairPhoneRequest(phone=phone).phone == phone


@pytest.mark.parametrize(
    "phone",
    [
        "155512",
        "1234567890123456",
        "+15551234567",
        "0123456789",
        "1 555 1234",
        "\uff11\uff15\uff15\uff15\uff11\uff12\uff13\uff14",
    ],
)
def test_other_phone_forms_are_refused(phone: str) -> None:
    with pytest.raises(ValidationError):
        PairPhoneRequest(phone=phone)
