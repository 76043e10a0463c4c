"""Which catalog events the simulated network produces.

It models accounts, pairing, messages (text, media, places, contact cards, templates, polls)
with receipts in one-to-one chats and groups, replies and poll votes (``poll.vote``),
reactions and edits of messages, chat and contact presence, push names, one-to-one calls that
ring and end, groups (``group.joined``, ``group.info``), answers to on-demand history requests
(``history.sync``), contacts' stories (``message.received`` in ``status@broadcast``),
blocking (``privacy.blocklist``), connection loss and refused or unanswered dials
(``connection.failure``); every other catalog event belongs to something it does not model
(channels, app state, the history sent after pairing) or is the gateway's own
(``message.sent``), and never comes from it.
"""

from __future__ import annotations

from gateway.webhooks.catalog import EventName

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
        EventName.MESSAGE_RECEIVED,
        EventName.MESSAGE_DELIVERED,
        EventName.MESSAGE_READ,
        EventName.CHAT_PRESENCE,
        EventName.CONTACT_PRESENCE,
        EventName.CONTACT_PUSHNAME,
        EventName.CALL_OFFER,
        EventName.CALL_TERMINATE,
        EventName.GROUP_INFO,
        EventName.GROUP_JOINED,
        EventName.HISTORY_SYNC,
        # Contacts.
        EventName.PRIVACY_BLOCKLIST,
        EventName.POLL_VOTE,
        # Reactions and edits.
        EventName.MESSAGE_REACTION,
        EventName.MESSAGE_EDITED,
    }
)
"""Catalog events the simulated adapter emits."""
