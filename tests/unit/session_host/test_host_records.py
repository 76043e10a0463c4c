"""Which device record fields each session event changes (the host writes them before publishing)."""

from __future__ import annotations

import pytest

from session_host.network.port import NetworkEvent
from session_host.records import event_changes

JID = "15550001111@s.whatsapp.net"


@pytest.mark.parametrize(
    ("name", "data", "changes"),
    [
        (
            "device.connected",
            {"messaging_jid": JID},
            {
                "status": "connected",
                "is_connected": True,
                "is_logged_in": True,
                "messaging_jid": JID,
                "last_error_code": None,
                "last_error_message": None,
                "last_error_at": None,
                "reconnect_at": None,
            },
        ),
        (
            "connection.failure",
            {"reason": "dial_error", "message": "refused", "reconnect_at": "2026-01-01T00:00:02.000Z"},
            {
                "last_error_code": "dial_error",
                "last_error_message": "refused",
                "last_error_at": "2001-09-09T01:46:40.000Z",
                "reconnect_at": "2026-01-01T00:00:02.000Z",
            },
        ),
        ("connection.manual_reconnect", {}, {"reconnect_at": None}),
        (
            "device.disconnected",
            {"is_logged_in": True},
            {"status": "disconnected", "is_connected": False, "is_logged_in": True},
        ),
        (
            "device.disconnected",
            {"is_logged_in": False},
            {"status": "not_ready", "is_connected": False, "is_logged_in": False},
        ),
        (
            "device.logged_out",
            {},
            {
                "status": "logged_out",
                "is_connected": False,
                "is_logged_in": False,
                "wants_connection": False,
                "messaging_jid": None,
            },
        ),
        (
            "qr.generated",
            {"qr_code": "2@x"},
            {"status": "pairing", "is_connected": False, "is_logged_in": False},
        ),
        (
            "pair.success",
            {"messaging_jid": JID},
            {"is_logged_in": True, "messaging_jid": JID, "paired_at": "2001-09-09T01:46:40.000Z"},
        ),
        ("connection.pair_error", {"reason": "qr_timeout"}, {"status": "not_ready", "is_connected": False}),
        ("message.received", {"message_id": "m1"}, None),
    ],
)
def test_event_changes(name: str, data: dict[str, object], changes: dict[str, object] | None) -> None:
    # Given an event / When its record changes are derived / Then they follow the command contract
    assert event_changes(NetworkEvent(name, data, occurred_at=1e9)) == changes
