"""Response bodies of the device routes, in the shapes ``gateway.devices.views`` builds."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from gateway.web.fields import Timestamp, Uuid
from gateway.web.outputs import NextCursor, OutputModel, Succeeded

DeviceStatus = Literal["not_ready", "pairing", "connected", "disconnected", "logged_out"]
"""The session states of ``session_host.network.port.SessionState`` (a test keeps them equal)."""


MessagingJid = Annotated[str | None, Field(description="The account's user JID; null until paired")]


class Device(OutputModel):
    id: Uuid
    tenant_id: Uuid
    owner_user_id: Uuid = Field(description="The user who created the device")
    name: str
    status: DeviceStatus
    is_connected: bool
    is_logged_in: bool
    messaging_jid: MessagingJid
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
