"""The chats each device wrote to or heard from: a chat not here is a new chat for the
sending policy (``gateway.devices.known_chats``)."""

from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from gateway.models.base import GatewayModel, table_meta


class KnownChatModel(GatewayModel):
    """One chat of one device. ``device_key`` is ``<tenant_id>#<device_id>``."""

    Meta = table_meta("chats_table")

    device_key = UnicodeAttribute(hash_key=True)
    chat_jid = UnicodeAttribute(range_key=True)
    first_at = NumberAttribute()  # epoch seconds: when the device first wrote to or heard from it
