"""The event catalog of the specification, and the two subscription aliases of the decisions.

``message`` subscribes to every ``message.*`` event and ``message.ack`` to the receipts
(``message.delivered``, ``message.read``); an envelope always carries the specific name.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class EventName(StrEnum):
    """An event of the catalog: the ``event`` of every envelope delivered."""

    # Messages
    MESSAGE_RECEIVED = "message.received"
    MESSAGE_SENT = "message.sent"
    MESSAGE_DELIVERED = "message.delivered"
    MESSAGE_READ = "message.read"
    MESSAGE_UNDECRYPTABLE = "message.undecryptable"
    MESSAGE_EDITED = "message.edited"
    MESSAGE_DELETE_FOR_ME = "message.delete_for_me"
    MENTION_SENT = "mention.sent"
    MEDIA_RETRY = "media.retry"
    MESSAGE_REACTION = "message.reaction"
    POLL_VOTE = "poll.vote"
    # Connection and session
    DEVICE_CONNECTED = "device.connected"
    DEVICE_DISCONNECTED = "device.disconnected"
    DEVICE_LOGGED_OUT = "device.logged_out"
    CONNECTION_PAIR_ERROR = "connection.pair_error"
    CONNECTION_STREAM_REPLACED = "connection.stream_replaced"
    CONNECTION_FAILURE = "connection.failure"
    CONNECTION_TEMPORARY_BAN = "connection.temporary_ban"
    CONNECTION_MANUAL_RECONNECT = "connection.manual_reconnect"
    CONNECTION_KEEPALIVE_TIMEOUT = "connection.keepalive_timeout"
    CONNECTION_KEEPALIVE_RESTORED = "connection.keepalive_restored"
    QR_GENERATED = "qr.generated"
    PAIR_SUCCESS = "pair.success"
    PAIR_PASSKEY_REQUEST = "pair.passkey_request"
    PAIR_PASSKEY_CONFIRMATION = "pair.passkey_confirmation"
    PAIR_PASSKEY_ERROR = "pair.passkey_error"
    # Sending policy: the network refused a send for rate; new-chat sends pause.
    DEVICE_SEND_LIMITED = "device.send_limited"
    # Contacts and chats
    CONTACT_PRESENCE = "contact.presence"
    CONTACT_CHANGED = "contact.changed"
    CONTACT_PUSHNAME = "contact.pushname"
    CONTACT_ABOUT = "contact.about"
    CONTACT_PICTURE = "contact.picture"
    CHAT_PRESENCE = "chat.presence"
    CHAT_MARK_AS_READ = "chat.mark_as_read"
    CHAT_PIN = "chat.pin"
    CHAT_MUTE = "chat.mute"
    CHAT_ARCHIVE = "chat.archive"
    CHAT_DELETE = "chat.delete"
    CHAT_CLEAR = "chat.clear"
    # Groups
    GROUP_INFO = "group.info"
    GROUP_JOINED = "group.joined"
    # Calls
    CALL_OFFER = "call.offer"
    CALL_ACCEPT = "call.accept"
    CALL_PRE_ACCEPT = "call.pre_accept"
    CALL_REJECT = "call.reject"
    CALL_TERMINATE = "call.terminate"
    CALL_RELAY_LATENCY = "call.relay_latency"
    CALL_TRANSPORT = "call.transport"
    CALL_UNKNOWN = "call.unknown"
    # Security and privacy
    IDENTITY_CHANGE = "identity.change"
    PRIVACY_BLOCKLIST = "privacy.blocklist"
    PRIVACY_SETTINGS = "privacy.settings"
    # Settings and labels
    SETTINGS_UNARCHIVE_CHATS = "settings.unarchive_chats"
    SETTINGS_USER_STATUS_MUTE = "settings.user_status_mute"
    LABEL_EDIT = "label.edit"
    LABEL_ASSOCIATION_CHAT = "label.association_chat"
    LABEL_ASSOCIATION_MESSAGE = "label.association_message"
    # Newsletters
    NEWSLETTER_JOIN = "newsletter.join"
    NEWSLETTER_LEAVE = "newsletter.leave"
    NEWSLETTER_LIVE_UPDATE = "newsletter.live_update"
    NEWSLETTER_MUTE_CHANGE = "newsletter.mute_change"
    # Sync
    HISTORY_SYNC = "history.sync"
    OFFLINE_SYNC_PREVIEW = "offline.sync_preview"
    OFFLINE_SYNC_COMPLETED = "offline.sync_completed"
    APP_STATE_SYNC_COMPLETE = "app_state.sync_complete"


CATALOG: tuple[EventName, ...] = tuple(EventName)
"""Every event, in the specification's order."""

ALIASES: dict[str, frozenset[str]] = {
    "message": frozenset(name for name in CATALOG if name.startswith("message.")),
    "message.ack": frozenset({EventName.MESSAGE_DELIVERED, EventName.MESSAGE_READ}),
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
