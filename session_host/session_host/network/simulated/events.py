"""``data`` payloads of the events the simulated network produces.

The shapes follow the specification's catalog and the neonize adapter, so a consumer
cannot tell the two adapters apart by the payloads.
"""

from __future__ import annotations

from typing import Any

from ..port import NetworkEvent
from .model import iso


def event(name: str, data: dict[str, Any]) -> NetworkEvent:
    return NetworkEvent(name=name, data=data)


# --- device lifecycle -----------------------------------------------------------------


def device_connected(device_id: str, jid: str | None) -> NetworkEvent:
    return event(
        "device.connected",
        {
            "device_id": device_id,
            "status": "connected",
            "messaging_jid": jid,
            "is_connected": True,
            "is_logged_in": True,
        },
    )


def device_disconnected(device_id: str, reason: str, *, logged_in: bool = True) -> NetworkEvent:
    return event(
        "device.disconnected",
        {
            "device_id": device_id,
            "status": "disconnected" if logged_in else "not_ready",
            "is_connected": False,
            "is_logged_in": logged_in,
            "reason": reason,
        },
    )


def device_logged_out(device_id: str, reason: str) -> NetworkEvent:
    return event(
        "device.logged_out",
        {
            "device_id": device_id,
            "status": "logged_out",
            "is_connected": False,
            "is_logged_in": False,
            "reason": reason,
        },
    )


def qr_generated(device_id: str, code: str, expires_at: float) -> NetworkEvent:
    return event("qr.generated", {"device_id": device_id, "qr_code": code, "expires_at": iso(expires_at)})


def pair_success(device_id: str, jid: str) -> NetworkEvent:
    return event(
        "pair.success",
        {"device_id": device_id, "messaging_jid": jid, "platform": "simulated", "business_name": None},
    )


def pair_error(device_id: str, reason: str, error: str) -> NetworkEvent:
    return event("connection.pair_error", {"device_id": device_id, "reason": reason, "error": error})


def stream_replaced(device_id: str) -> NetworkEvent:
    return event(
        "connection.stream_replaced",
        {"device_id": device_id, "reason": "another client connected with the same credentials"},
    )


# --- messages (built by the network, handed to sessions as plain data) -----------------


def message_sent(message_id: str, chat_jid: str, text: str, at: float) -> NetworkEvent:
    return event(
        "message.sent",
        {
            "message_id": message_id,
            "chat_jid": chat_jid,
            "to": chat_jid,
            "content": text,
            "timestamp": iso(at),
        },
    )


def message_received(
    message_id: str, sender_jid: str, push_name: str, to_jid: str, text: str, at: float
) -> dict[str, Any]:
    return {
        "message_id": message_id,
        "from": sender_jid,
        "to": to_jid,
        "chat_jid": sender_jid,
        "content": text,
        "message_type": "text",
        "is_from_me": False,
        "is_group": False,
        "push_name": push_name,
        "timestamp": iso(at),
    }


def receipt(
    kind: str, message_ids: list[str], chat_jid: str, at: float, reader: str | None
) -> dict[str, Any]:
    """``message.delivered`` (kind ``delivered``) or ``message.read`` (kind ``read``) data."""
    data: dict[str, Any] = {
        "message_ids": list(message_ids),
        "chat_jid": chat_jid,
        "receipt_type": kind,
        "message_count": len(message_ids),
        "is_group": False,
        f"{kind}_at": iso(at),
    }
    if kind == "read":
        data["reader"] = reader
    return data


def chat_presence(sender_jid: str, state: str) -> dict[str, Any]:
    return {"chat_jid": sender_jid, "sender": sender_jid, "is_group": False, "state": state, "media": "text"}
