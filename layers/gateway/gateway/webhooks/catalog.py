"""The event catalog of the specification, and the two subscription aliases of the decisions.

``message`` subscribes to every ``message.*`` event and ``message.ack`` to the receipts
(``message.delivered``, ``message.read``); an envelope always carries the specific name.
"""

from __future__ import annotations

from collections.abc import Iterable

CATALOG: tuple[str, ...] = (
    # Messages
    "message.received",
    "message.sent",
    "message.delivered",
    "message.read",
    "message.undecryptable",
    "message.edited",
    "message.delete_for_me",
    "mention.sent",
    "media.retry",
    # Connection and session
    "device.connected",
    "device.disconnected",
    "device.logged_out",
    "connection.pair_error",
    "connection.stream_replaced",
    "connection.failure",
    "connection.temporary_ban",
    "connection.manual_reconnect",
    "connection.keepalive_timeout",
    "connection.keepalive_restored",
    "qr.generated",
    "pair.success",
    "pair.passkey_request",
    "pair.passkey_confirmation",
    "pair.passkey_error",
    # Contacts and chats
    "contact.presence",
    "contact.changed",
    "contact.pushname",
    "contact.about",
    "contact.picture",
    "chat.presence",
    "chat.mark_as_read",
    "chat.pin",
    "chat.mute",
    "chat.archive",
    "chat.delete",
    "chat.clear",
    # Groups
    "group.info",
    "group.joined",
    # Calls
    "call.offer",
    "call.accept",
    "call.pre_accept",
    "call.reject",
    "call.terminate",
    "call.relay_latency",
    "call.transport",
    "call.unknown",
    # Security and privacy
    "identity.change",
    "privacy.blocklist",
    "privacy.settings",
    # Settings and labels
    "settings.unarchive_chats",
    "settings.user_status_mute",
    "label.edit",
    "label.association_chat",
    "label.association_message",
    # Newsletters
    "newsletter.join",
    "newsletter.leave",
    "newsletter.live_update",
    "newsletter.mute_change",
    # Sync
    "history.sync",
    "offline.sync_preview",
    "offline.sync_completed",
    "app_state.sync_complete",
)

ALIASES: dict[str, frozenset[str]] = {
    "message": frozenset(name for name in CATALOG if name.startswith("message.")),
    "message.ack": frozenset({"message.delivered", "message.read"}),
}

SUBSCRIBABLE: tuple[str, ...] = (*CATALOG, *ALIASES)
"""Every name POST /webhook accepts and GET /webhook/events lists."""


def unknown_names(names: Iterable[str]) -> list[str]:
    """The names that are neither catalog events nor aliases, in the order given."""
    known = set(SUBSCRIBABLE)
    return [name for name in names if name not in known]


def expand(names: Iterable[str]) -> frozenset[str]:
    """The catalog events a subscription to ``names`` delivers (aliases expanded)."""
    events: set[str] = set()
    for name in names:
        events |= ALIASES.get(name, {name})
    return frozenset(events)
