"""Which catalog events the neonize adapter produces, and why the others are missing.

:data:`PRODUCED_EVENTS` lists every event name this adapter can emit. The catalog events it
cannot emit fall in three groups (:data:`UNAVAILABLE_EVENTS` gives the reason per name):

- **Not network events.** ``message.sent`` and ``mention.sent`` are emitted by the gateway
  when it dispatches a send; ``connection.manual_reconnect`` is the gateway's own action.
- **Not delivered by neonize 0.5.2.** Its Go bridge forwards a fixed list of whatsmeow
  events (``neonize.events.EVENT_TO_INT``). App-state events (delete-for-me, pin, mute,
  archive, delete and clear chat, mark-as-read, contact and push-name changes, settings,
  labels, app-state sync), media retries, call rejects and passkey pairing are not in it,
  so no handler can ever see them.
- **Delivered but not mapped yet.** Group info/joins, calls, blocklist and privacy settings,
  history sync and newsletters could arrive from the library, but their ``data`` payloads
  are not defined yet, so no handler subscribes to them until a capability defines them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

PRODUCED_EVENTS: frozenset[str] = frozenset(
    {
        "device.connected",
        "device.disconnected",
        "device.logged_out",
        "qr.generated",
        "pair.success",
        "connection.pair_error",
        "connection.stream_replaced",
        "connection.failure",
        "connection.temporary_ban",
        "connection.keepalive_timeout",
        "connection.keepalive_restored",
        "message.received",
        "message.delivered",
        "message.read",
        "message.undecryptable",
        "chat.presence",
        "contact.presence",
        "contact.picture",
        "identity.change",
        "offline.sync_preview",
        "offline.sync_completed",
    }
)
"""Catalog events the neonize adapter emits."""

_GATEWAY = "emitted by the gateway itself, not by the network"
_NOT_FORWARDED = "not forwarded by neonize 0.5.2's Go bridge (no event code for it)"
_NOT_MAPPED = "delivered by neonize but not mapped yet (no data payload defined)"

UNAVAILABLE_EVENTS: Mapping[str, str] = MappingProxyType(
    {
        "message.sent": _GATEWAY,
        "mention.sent": _GATEWAY,
        "connection.manual_reconnect": _GATEWAY,
        "message.delete_for_me": _NOT_FORWARDED,
        "media.retry": _NOT_FORWARDED,
        "pair.passkey_request": _NOT_FORWARDED,
        "pair.passkey_confirmation": _NOT_FORWARDED,
        "pair.passkey_error": _NOT_FORWARDED,
        "contact.changed": _NOT_FORWARDED,
        "contact.pushname": _NOT_FORWARDED,
        "contact.about": _NOT_FORWARDED,
        "chat.mark_as_read": _NOT_FORWARDED,
        "chat.pin": _NOT_FORWARDED,
        "chat.mute": _NOT_FORWARDED,
        "chat.archive": _NOT_FORWARDED,
        "chat.delete": _NOT_FORWARDED,
        "chat.clear": _NOT_FORWARDED,
        "call.reject": _NOT_FORWARDED,
        "settings.unarchive_chats": _NOT_FORWARDED,
        "settings.user_status_mute": _NOT_FORWARDED,
        "label.edit": _NOT_FORWARDED,
        "label.association_chat": _NOT_FORWARDED,
        "label.association_message": _NOT_FORWARDED,
        "app_state.sync_complete": _NOT_FORWARDED,
        "group.info": _NOT_MAPPED,
        "group.joined": _NOT_MAPPED,
        "call.offer": _NOT_MAPPED,
        "call.accept": _NOT_MAPPED,
        "call.pre_accept": _NOT_MAPPED,
        "call.terminate": _NOT_MAPPED,
        "call.relay_latency": _NOT_MAPPED,
        "call.transport": _NOT_MAPPED,
        "call.unknown": _NOT_MAPPED,
        "privacy.blocklist": _NOT_MAPPED,
        "privacy.settings": _NOT_MAPPED,
        "history.sync": _NOT_MAPPED,
        "newsletter.join": _NOT_MAPPED,
        "newsletter.leave": _NOT_MAPPED,
        "newsletter.live_update": _NOT_MAPPED,
        "newsletter.mute_change": _NOT_MAPPED,
    }
)
"""Catalog events the neonize adapter never emits, with the reason."""
