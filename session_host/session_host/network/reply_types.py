"""Replies and polls on the port: the message a send quotes, a poll to send, and how a vote
names the options it chose.

A send that quotes (``reply_to`` of POST /send/*) reaches an adapter as a :class:`Quote`,
resolved by the session host when it goes out: one of the device's own sends (the gateway's
id turned into the network's, with its text), or an id the gateway does not know, passed
as the network's. The adapters put it in the message (neonize: the content's
``ContextInfo``; the simulated network: the recipient's inbox and ``message.received``).

A vote names the options it chose by their SHA-256 hashes on the real network (whatsmeow's
``HashPollOptions``): :func:`option_hash` maps them back to texts, given the poll's options,
which the outbox keeps with the send of the poll.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

UNKNOWN_OPTION_PREFIX = "sha256:"
"""How ``poll.vote`` names an option of a poll whose texts the gateway does not know."""


@dataclass(frozen=True)
class Quote:
    """The message a send quotes.

    ``message_id`` is the network's id. ``from_me``: True for one of the device's own sends
    (then ``content`` is its text, as the outbox keeps it), False when the gateway does not
    know the message (``content`` None): the adapter may still know it (neonize keeps the
    messages it received lately; the simulated network knows every message).
    """

    message_id: str
    from_me: bool = False
    content: str | None = None


@dataclass(frozen=True)
class Poll:
    """A poll to send: a question and 2 to 12 distinct options; ``multiple_answers`` lets a
    voter choose several (else exactly one)."""

    question: str
    options: tuple[str, ...]
    multiple_answers: bool = False


def option_hash(option: str) -> bytes:
    """The network's name of a poll option in a vote: the SHA-256 of its text."""
    return hashlib.sha256(option.encode()).digest()


def option_texts(hashes: Iterable[bytes], options: Sequence[str] | None) -> list[str]:
    """The texts of the options a vote chose, in the order the vote lists them; a hash that
    matches none of ``options`` (or when they are unknown) as ``sha256:<hex>``."""
    by_hash = {option_hash(option): option for option in options or ()}
    return [by_hash.get(bytes(h), f"{UNKNOWN_OPTION_PREFIX}{bytes(h).hex()}") for h in hashes]
