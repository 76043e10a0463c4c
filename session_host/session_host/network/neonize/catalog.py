"""What the neonize adapter can do: the catalog events it produces (and why the others are
missing), and the port operations it cannot carry out (:data:`UNSUPPORTED_OPERATIONS`).

:data:`PRODUCED_EVENTS` lists every event name this adapter can emit (:mod:`.mapping` says
from which neonize event class). The catalog events it cannot emit fall in two groups
(:data:`UNAVAILABLE_EVENTS` gives the reason per name):

- **Not network events.** ``message.sent`` and ``mention.sent`` are emitted by the gateway
  when it dispatches a send, ``message.delete_for_me`` when it deletes one for me;
  ``connection.manual_reconnect`` is the gateway's own action.
- **Not forwarded by neonize 0.5.2.** Its Go bridge forwards a fixed list of whatsmeow
  events (``neonize.events.EVENT_TO_INT``). App-state events (pin, mute,
  archive, delete and clear chat, mark-as-read, contact and push-name changes, settings,
  labels, app-state sync), the contact "about" text, media retries, call rejects and
  passkey pairing are not in it, so no handler can ever see them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..port import NetworkError

LIBRARY = "neonize 0.5.2"

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
        "message.edited",
        "chat.presence",
        "contact.presence",
        "contact.picture",
        "identity.change",
        "group.info",
        "group.joined",
        "call.offer",
        "call.accept",
        "call.pre_accept",
        "call.terminate",
        "call.relay_latency",
        "call.transport",
        "call.unknown",
        "privacy.blocklist",
        "privacy.settings",
        "newsletter.join",
        "newsletter.leave",
        "newsletter.live_update",
        "newsletter.mute_change",
        "history.sync",
        "offline.sync_preview",
        "offline.sync_completed",
    }
)
"""Catalog events the neonize adapter emits."""

_GATEWAY = "emitted by the gateway itself, not by the network"
_NOT_FORWARDED = "not forwarded by neonize 0.5.2's Go bridge (no event code for it)"

UNAVAILABLE_EVENTS: Mapping[str, str] = MappingProxyType(
    {
        "message.sent": _GATEWAY,
        "mention.sent": _GATEWAY,
        "connection.manual_reconnect": _GATEWAY,
        # A delete for me done on the phone is app state, not forwarded by neonize; one done
        # through DELETE /messages/{id} is emitted by the session host.
        "message.delete_for_me": _GATEWAY,
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
    }
)
"""Catalog events the neonize adapter never emits, with the reason."""

_NO_CALL = "its Go library exports no call for it"

UNSUPPORTED_OPERATIONS: Mapping[str, str] = MappingProxyType(
    {
        "connect.same_account": (
            "neonize keys clients by the account's phone number, so two devices linked to one "
            "account cannot run in one process"
        ),
        "send_template": "the real network does not show quick-reply buttons sent by a linked device",
        "delete_for_me": "its app-state patches cannot be encoded (send_app_state is broken)",
        "request_history_sync": "it cannot send the peer message a history request needs",
        "set_status_privacy": (
            "it has no setter for who sees the stories; change it on the phone (GET still reads it)"
        ),
        "create_group.join_approval": (
            "creating a group with join approval: its create request has no approval field and it "
            "cannot be set later"
        ),
        "create_group.community": (
            "creating a community without join approval: whatsmeow always asks the network for "
            "request_required; pass join_approval true"
        ),
        "update_group.join_approval": f"{_NO_CALL}; nothing changed",
        "update_group.member_add_mode": f"{_NO_CALL}; nothing changed",
        "answer_group_requests": _NO_CALL,
    }
)
"""The port operations (``operation.option`` for one option of it) neonize cannot carry out,
with the reason; :func:`unsupported` is the one place that refuses them."""


def unsupported(operation: str, detail: str = "") -> NetworkError:
    """The port's ``UNSUPPORTED`` for an entry of :data:`UNSUPPORTED_OPERATIONS`; ``detail``
    names what was asked (an account, the requests), after the operation's name."""
    named = f"{operation} ({detail})" if detail else operation
    return NetworkError.unsupported(named, LIBRARY, UNSUPPORTED_OPERATIONS[operation])
