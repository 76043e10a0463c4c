"""Input rules both adapters apply to message operations before anything is sent.

Kept in one place so the adapters refuse the same inputs with the same kind (``INVALID``).
"""

from __future__ import annotations

import math

from gateway import jids
from gateway.bus.contracts.messages import MAX_POLL_OPTIONS
from gateway.failures.kinds import ErrorKind

from .media_types import MEDIA_RULES, ContactCard, Location, MediaKind, OutgoingMedia, Template
from .port import MessageRef, NetworkError
from .reply_types import Poll

MAX_BUTTONS = 3


def check_message(chat: str, message_id: str) -> None:
    if not chat or not message_id:
        raise NetworkError(ErrorKind.INVALID, "chat and message_id are required")


def check_delete_for_me(chat: str, message_id: str, *, from_me: bool, sender: str | None) -> None:
    """A group message someone else sent is keyed by its author: ``sender`` is required then."""
    check_message(chat, message_id)
    if jids.is_group_jid(chat) and not from_me and not sender:
        raise NetworkError(ErrorKind.INVALID, "sender is required for a group message not from me")


def check_history_sync(chat: str, count: int, oldest: MessageRef) -> None:
    """The request names one chat and starts at a message of it."""
    check_message(chat, oldest.message_id)
    if count < 1:
        raise NetworkError(ErrorKind.INVALID, "count must be at least 1")
    if oldest.chat != chat:
        raise NetworkError(ErrorKind.INVALID, "the oldest message must be of the chat synced")


def check_reaction(chat: str, message_id: str, emoji: str, *, from_me: bool, sender: str | None) -> None:
    """A message keyed as for a delete for me; the emoji one token (empty: a removal)."""
    check_delete_for_me(chat, message_id, from_me=from_me, sender=sender)
    if emoji != emoji.strip():
        raise NetworkError(ErrorKind.INVALID, "a reaction is one emoji, without spaces")


def check_edit(chat: str, message_id: str, text: str) -> None:
    check_message(chat, message_id)
    if not text.strip():
        raise NetworkError(ErrorKind.INVALID, "an edit needs a text")


def _invalid(message: str) -> NetworkError:
    return NetworkError(ErrorKind.INVALID, message)


def check_media(media: OutgoingMedia) -> None:
    """The network's rules for a kind (:data:`.media_types.MEDIA_RULES`): a payload, a MIME
    type it takes, a size it allows. A document without a file name is allowed."""
    if media.kind not in MEDIA_RULES:
        raise _invalid(f"not a media kind: {media.kind!r}")
    kind = MediaKind(media.kind)
    rule = MEDIA_RULES[kind]
    if not media.data:
        raise _invalid(f"the {kind} is empty")
    mimetype = (media.mimetype or "").split(";")[0].strip().lower()
    if "/" not in mimetype:
        raise _invalid(f"not a MIME type: {media.mimetype!r}")
    if (mimetype != rule.mime_prefix) if rule.exact else not mimetype.startswith(rule.mime_prefix):
        raise _invalid(f"a {kind} must be {rule.mime_prefix}{'' if rule.exact else '*'}, not {mimetype}")
    if len(media.data) > rule.max_bytes:
        raise _invalid(f"a {kind} may be {rule.max_bytes} bytes at most, this one is {len(media.data)}")
    if media.ptt and kind is not MediaKind.AUDIO:
        raise _invalid("only audio is sent as a voice note")


def check_location(location: Location) -> None:
    lat, lon = location.latitude, location.longitude
    if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
        raise _invalid(f"not a place on Earth: {lat}, {lon}")


def check_contact(card: ContactCard) -> None:
    if not card.name.strip():
        raise _invalid("the contact has no name")
    if not jids.is_phone(card.phone):
        raise _invalid(f"the contact's phone must be {jids.PHONE_RULE}")


def check_template(template: Template) -> None:
    """A text and 1 to 3 quick replies with distinct ids, as the network renders them."""
    if not template.text:
        raise _invalid("the template has no text")
    if not 1 <= len(template.buttons) <= MAX_BUTTONS:
        raise _invalid(f"a template has 1 to {MAX_BUTTONS} buttons")
    ids = [button.id for button in template.buttons]
    if any(not button.id or not button.text for button in template.buttons) or len(set(ids)) != len(ids):
        raise _invalid("each button needs its own id and a text")


def check_poll(poll: Poll) -> None:
    """A question and 2 to 12 distinct, non-empty options (a vote names options by hash)."""
    if not poll.question.strip():
        raise _invalid("the poll has no question")
    if not 2 <= len(poll.options) <= MAX_POLL_OPTIONS:
        raise _invalid(f"a poll has 2 to {MAX_POLL_OPTIONS} options")
    if any(not option.strip() for option in poll.options) or len(set(poll.options)) != len(poll.options):
        raise _invalid("each option needs a text of its own")
