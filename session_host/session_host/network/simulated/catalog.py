"""Which catalog events the simulated network produces.

It models accounts, pairing, messages (text, media, places, contact cards, templates) with
receipts in one-to-one chats and groups, chat and contact presence, push names, one-to-one
calls that ring and end, groups (``group.joined``, ``group.info``), answers to on-demand
history requests (``history.sync``), contacts' stories (``message.received`` in
``status@broadcast``), connection loss and refused or unanswered dials
(``connection.failure``); every other catalog event belongs to something it
does not model (channels, app state, the history sent after pairing) or is the gateway's own
(``message.sent``), and never comes from it.
"""

from __future__ import annotations

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
        "message.received",
        "message.delivered",
        "message.read",
        "chat.presence",
        "contact.presence",
        "contact.pushname",
        "call.offer",
        "call.terminate",
        "group.info",
        "group.joined",
        "history.sync",
    }
)
"""Catalog events the simulated adapter emits."""
