"""Response bodies of the device routes, in the shapes ``gateway.devices.views`` builds."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from gateway.web.fields import Timestamp, Uuid
from gateway.web.outputs import NextCursor, OutputModel, Succeeded


class DeviceStatus(StrEnum):
    """A device's session state: ``session_host.network.port.SessionState``, which the shared
    library cannot import (a test keeps the two equal)."""

    NOT_READY = "not_ready"
    PAIRING = "pairing"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    LOGGED_OUT = "logged_out"


MessagingJid = Annotated[str | None, Field(description="The account's user JID; null until paired")]


class LastError(OutputModel):
    """Why the session last could not reach or stay on the network."""

    code: str = Field(
        description="`dial_error`, `timeout`, `stream_error`, `connection_lost`, `session_ended`, "
        "`connect_failure`, `client_outdated` (no retry until a new connect), `temporary_ban`, ..."
    )
    message: str
    at: Timestamp


class UsageToday(OutputModel):
    """What the device sent today (UTC) and today's limits after warm-up."""

    day: str = Field(description="The UTC day, `YYYY-MM-DD`", examples=["2026-12-01"])
    sent: int = Field(description="Messages sent today")
    new_chats: int = Field(
        description="Of them, messages to chats the device had never written to or heard from"
    )
    daily_limit: int | None = Field(description="Today's `daily_send_limit` after warm-up; null: no limit")
    new_chat_limit: int | None = Field(
        description="Today's `new_chat_daily_limit` after warm-up; null: no limit"
    )


class Device(OutputModel):
    id: Uuid
    tenant_id: Uuid
    owner_user_id: Uuid = Field(description="The user who created the device")
    name: str
    status: DeviceStatus
    is_connected: bool
    is_logged_in: bool
    messaging_jid: MessagingJid
    min_send_interval_seconds: int = Field(
        description="Consecutive sends go out at least this many seconds apart (0: no spacing)"
    )
    reject_calls: bool = Field(description="Every incoming call is rejected at once (`call.reject`)")
    reject_calls_message: str | None = Field(
        description="The text a rejected caller gets from the device; null: none"
    )
    daily_send_limit: int | None = Field(
        description="At most this many messages a UTC day, after warm-up (docs/sending-policy.md); "
        "null: no limit"
    )
    new_chat_daily_limit: int | None = Field(
        description="At most this many messages a UTC day to new chats, after warm-up; null: no limit"
    )
    warmup_days: int = Field(
        description="The limits ramp from 10 % to 100 % over this many days from pairing"
    )
    send_jitter_seconds: int = Field(
        description="A random 0 to this many seconds added to `min_send_interval_seconds` between sends"
    )
    sending_paused_until: Timestamp | None = Field(
        description="Until when sends to new chats wait, after the network refused a send for rate; "
        "null: not paused"
    )
    usage_today: UsageToday
    proxy_url: str | None = Field(
        description="The proxy the device's network connection goes through (its password shown as "
        "`***`); null: none",
        examples=["socks5://user:***@proxy.example.com:1080"],
    )
    last_error: LastError | None = Field(
        description="The last reason the session could not reach or stay on the network; null once connected"
    )
    reconnect_at: Timestamp | None = Field(
        description="When the session host tries to reach the network next; null when no attempt is due"
    )
    created_at: Timestamp
    updated_at: Timestamp


class DeviceSummary(OutputModel):
    """A device as GET /status lists it: the fields of ``views.SUMMARY_FIELDS``."""

    id: Uuid
    name: str
    status: DeviceStatus
    is_connected: bool
    is_logged_in: bool
    messaging_jid: MessagingJid


class DeviceResponse(Succeeded):
    device: Device


class DeviceListResponse(Succeeded):
    devices: list[Device]
    next: NextCursor = None


class DeviceDeletedResponse(Succeeded):
    message: str
    device_id: Uuid


class QrCodeResponse(Succeeded):
    qr_code: str = Field(description="The text a phone's camera reads")
    qr_png_base64: str = Field(description="The same code as a PNG image, base64")
    expires_at: Timestamp


class PairCodeResponse(Succeeded):
    pair_code: str = Field(description="The code to type on the phone, e.g. `ABCD-EFGH`")
