"""neonize's blocklist and privacy-settings events → ``privacy.blocklist``, ``privacy.settings``."""

from __future__ import annotations

from neonize.proto.Neonize_pb2 import BlocklistEvent, PrivacySettings, privacySettingsEvent

from gateway.webhooks.catalog import EventName

from .. import payloads
from ..port import NetworkEvent
from .events import EventContext, enum_name
from .jids import jid_str

_SETTINGS = {
    "group_add": "GroupAdd",
    "last_seen": "LastSeen",
    "status": "Status",
    "profile": "Profile",
    "read_receipts": "ReadReceipts",
    "call_add": "CallAdd",
    "online": "Online",
}
"""Setting names in the payload → fields of neonize's ``PrivacySettings`` (and ``<field>Changed``)."""


def blocklist(_ctx: EventContext, ev: BlocklistEvent) -> NetworkEvent:
    """The account blocked or unblocked people (from any of its devices)."""
    changes = [(jid_str(change.JID), enum_name(change, "BlockAction")) for change in ev.Changes]
    return payloads.blocklist_changed(changes, refresh_needed=enum_name(ev, "Action") == "modify")


def _setting(settings: PrivacySettings, field: str) -> str | None:
    value = enum_name(settings, field)
    return None if value == "undefined" else value


def privacy_settings(_ctx: EventContext, ev: privacySettingsEvent) -> NetworkEvent:
    """The account's privacy settings changed: all of them as they are now, and which changed."""
    settings = {name: _setting(ev.NewSettings, field) for name, field in _SETTINGS.items()}
    changed = [name for name, field in _SETTINGS.items() if getattr(ev, f"{field}Changed")]
    return NetworkEvent(name=EventName.PRIVACY_SETTINGS, data={"settings": settings, "changed": changed})
