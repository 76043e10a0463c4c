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

from gateway.webhooks.catalog import EventName

from ..port import NetworkError

LIBRARY = "neonize 0.5.2"

PRODUCED_EVENTS: frozenset[EventName] = frozenset(
    {
        EventName.DEVICE_CONNECTED,
        EventName.DEVICE_DISCONNECTED,
        EventName.DEVICE_LOGGED_OUT,
        EventName.QR_GENERATED,
        EventName.PAIR_SUCCESS,
        EventName.CONNECTION_PAIR_ERROR,
        EventName.CONNECTION_STREAM_REPLACED,
        EventName.CONNECTION_FAILURE,
        EventName.CONNECTION_TEMPORARY_BAN,
        EventName.CONNECTION_KEEPALIVE_TIMEOUT,
        EventName.CONNECTION_KEEPALIVE_RESTORED,
        EventName.MESSAGE_RECEIVED,
        EventName.MESSAGE_DELIVERED,
        EventName.MESSAGE_READ,
        EventName.MESSAGE_UNDECRYPTABLE,
        EventName.MESSAGE_EDITED,
        EventName.CHAT_PRESENCE,
        EventName.CONTACT_PRESENCE,
        EventName.CONTACT_PICTURE,
        EventName.IDENTITY_CHANGE,
        EventName.GROUP_INFO,
        EventName.GROUP_JOINED,
        EventName.CALL_OFFER,
        EventName.CALL_ACCEPT,
        EventName.CALL_PRE_ACCEPT,
        EventName.CALL_TERMINATE,
        EventName.CALL_RELAY_LATENCY,
        EventName.CALL_TRANSPORT,
        EventName.CALL_UNKNOWN,
        EventName.PRIVACY_BLOCKLIST,
        EventName.PRIVACY_SETTINGS,
        EventName.NEWSLETTER_JOIN,
        EventName.NEWSLETTER_LEAVE,
        EventName.NEWSLETTER_LIVE_UPDATE,
        EventName.NEWSLETTER_MUTE_CHANGE,
        EventName.HISTORY_SYNC,
        EventName.OFFLINE_SYNC_PREVIEW,
        EventName.OFFLINE_SYNC_COMPLETED,
        EventName.POLL_VOTE,
        # Reactions and edits.
        EventName.MESSAGE_REACTION,
    }
)
"""Catalog events the neonize adapter emits."""

_GATEWAY = "emitted by the gateway itself, not by the network"
_NOT_FORWARDED = "not forwarded by neonize 0.5.2's Go bridge (no event code for it)"

UNAVAILABLE_EVENTS: Mapping[EventName, str] = MappingProxyType(
    {
        EventName.MESSAGE_SENT: _GATEWAY,
        EventName.MENTION_SENT: _GATEWAY,
        EventName.CONNECTION_MANUAL_RECONNECT: _GATEWAY,
        # A delete for me done on the phone is app state, not forwarded by neonize; one done
        # through DELETE /messages/{id} is emitted by the session host.
        EventName.MESSAGE_DELETE_FOR_ME: _GATEWAY,
        # A rejection the device makes (POST /calls/{id}/reject, reject_calls) is emitted by the
        # session host; one made on the phone is not forwarded by neonize (no event code).
        EventName.CALL_REJECT: _GATEWAY,
        # The session host's send dispatcher announces a rate refusal it met (sending policy).
        EventName.DEVICE_SEND_LIMITED: _GATEWAY,
        EventName.MEDIA_RETRY: _NOT_FORWARDED,
        EventName.PAIR_PASSKEY_REQUEST: _NOT_FORWARDED,
        EventName.PAIR_PASSKEY_CONFIRMATION: _NOT_FORWARDED,
        EventName.PAIR_PASSKEY_ERROR: _NOT_FORWARDED,
        EventName.CONTACT_CHANGED: _NOT_FORWARDED,
        EventName.CONTACT_PUSHNAME: _NOT_FORWARDED,
        EventName.CONTACT_ABOUT: _NOT_FORWARDED,
        EventName.CHAT_MARK_AS_READ: _NOT_FORWARDED,
        EventName.CHAT_PIN: _NOT_FORWARDED,
        EventName.CHAT_MUTE: _NOT_FORWARDED,
        EventName.CHAT_ARCHIVE: _NOT_FORWARDED,
        EventName.CHAT_DELETE: _NOT_FORWARDED,
        EventName.CHAT_CLEAR: _NOT_FORWARDED,
        EventName.SETTINGS_UNARCHIVE_CHATS: _NOT_FORWARDED,
        EventName.SETTINGS_USER_STATUS_MUTE: _NOT_FORWARDED,
        EventName.LABEL_EDIT: _NOT_FORWARDED,
        EventName.LABEL_ASSOCIATION_CHAT: _NOT_FORWARDED,
        EventName.LABEL_ASSOCIATION_MESSAGE: _NOT_FORWARDED,
        EventName.APP_STATE_SYNC_COMPLETE: _NOT_FORWARDED,
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
