"""The simulated network's traffic as catalog events (shapes from :mod:`..payloads`).

What is specific to this adapter: messages are text, media, places, contacts and templates
(in one-to-one chats and groups), media bytes come from the network's store by sha256, calls
are one-to-one, the pairing platform and a caller's platform are ``simulated`` (accounts are
personal: no business name), and traffic waits on the network as plain JSON ``{name,
data}`` items (saved with the network's state) until the device takes it. Only this
adapter produces ``contact.pushname`` (neonize's bridge does not forward it): its payload
is built here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any

from gateway import jids
from gateway.webhooks.catalog import EventName

from .. import call_payloads, group_payloads, payloads
from ..media_types import MediaKind, ReceivedMedia
from ..payloads import ReceiptKind
from ..port import NetworkEvent
from ..status_types import MediaStatus, StatusContent
from . import bodies
from .bodies import Body
from .group_records import Group, GroupChange
from .model import Call

PLATFORM = "simulated"


def pair_success(device_id: str, jid: str) -> NetworkEvent:
    return payloads.pair_success(device_id, jid, platform=PLATFORM, business_name="")


def text_received(
    message_id: str, sender_jid: str, push_name: str, to_jid: str, text: str, at: float
) -> NetworkEvent:
    """A text from a contact in the one-to-one chat (:func:`message_received` of a text)."""
    return message_received(message_id, sender_jid, push_name, to_jid, bodies.text(text), at)


def message_received(
    message_id: str,
    sender_jid: str,
    push_name: str,
    to_jid: str,
    body: Body,
    at: float,
    *,
    group_jid: str | None = None,
    attachment: ReceivedMedia | None = None,
) -> NetworkEvent:
    """A message as the recipient's devices see it: in the one-to-one chat with the sender, or
    in the group ``group_jid`` (then ``to`` and the chat are the group)."""
    return payloads.message_received(
        message_id=message_id,
        sender=sender_jid,
        recipient=group_jid or to_jid,
        chat_jid=group_jid or sender_jid,
        content=body.content,
        message_type=body.type,
        is_from_me=False,
        is_group=group_jid is not None,
        push_name=push_name,
        timestamp=at,
        extra=body.extra,
        attachment=attachment,
        quoted=body.quoted,
    )


def status_received(
    story: Mapping[str, Any], push_name: str, reader_jid: str, content: StatusContent, at: float
) -> NetworkEvent:
    """A contact's story as the reader's devices see it: whatsmeow's ``MessageEv`` in the chat
    ``status@broadcast``, converted as neonize's adapter converts it (``content.py``)."""
    extra: dict[str, Any] = {}
    if isinstance(content, MediaStatus):
        media = {"mime_type": content.mimetype, "caption": content.caption, "file_length": len(content.data)}
        extra["media"] = {**media, "media_path": None}
    return payloads.message_received(
        message_id=story["message_id"],
        sender=story["from"],
        recipient=reader_jid,
        chat_jid=jids.STATUS_BROADCAST_JID,
        content=story["text"] or story["caption"] or "",
        message_type=story["type"],
        is_from_me=False,
        is_group=False,
        push_name=push_name,
        timestamp=at,
        extra=extra,
    )


def receipt(
    kind: ReceiptKind, message_ids: list[str], chat_jid: str, at: float, *, by: str | None = None
) -> NetworkEvent:
    """A receipt for the sender's devices: from the other person of a one-to-one chat, or from
    the member ``by`` of the group ``chat_jid``; a read names who read."""
    is_group = jids.is_group_jid(chat_jid)
    reader = (by or chat_jid) if kind == "read" else None
    return payloads.message_receipt(
        kind, message_ids=message_ids, chat_jid=chat_jid, is_group=is_group, at=at, reader=reader
    )


def chat_presence(sender_jid: str, state: str, *, group_jid: str | None = None) -> NetworkEvent:
    """Typing in the one-to-one chat with the sender, or in the group ``group_jid``."""
    return payloads.chat_presence(
        chat_jid=group_jid or sender_jid,
        sender=sender_jid,
        is_group=group_jid is not None,
        state=state,
        media="text",
    )


def contact_presence(jid: str, available: bool, at: float) -> NetworkEvent:
    """The contact came online, or went offline (then seen last ``at``)."""
    return payloads.contact_presence(jid, available=available, last_seen=None if available else at)


def push_name_changed(jid: str, old: str, new: str) -> NetworkEvent:
    """A contact's messages now carry another push name than the device saw before."""
    data = {"jid": jid, "old_push_name": old, "new_push_name": new}
    return NetworkEvent(name=EventName.CONTACT_PUSHNAME, data=data)


def call_offer(call: Call) -> NetworkEvent:
    return call_payloads.call_offer(
        call_id=call.call_id,
        sender=call.caller,
        creator=call.caller,
        at=call.started_at,
        is_video=call.video,
        is_group=False,
        remote_platform=PLATFORM,
        remote_version=None,
    )


def call_terminate(call: Call, reason: str | None, at: float) -> NetworkEvent:
    return call_payloads.call_terminate(
        call_id=call.call_id, sender=call.caller, creator=call.caller, at=at, reason=reason
    )


def group_joined(group: Group, reason: str | None, author: str | None) -> NetworkEvent:
    """The group as it is now, for the devices of an account that just got in."""
    return group_payloads.group_joined(
        group_jid=group.jid,
        name=group.name,
        topic=group.topic,
        owner=group.owner,
        created_at=group.created_at,
        locked=group.is_locked,
        announce=group.is_announce,
        ephemeral_seconds=group.ephemeral_duration,
        is_community=group.is_community,
        community_jid=group.parent_jid,
        participants=[group.participant(jid) for jid in group.participants],
        reason=reason,
        author=author,
    )


INFO_FIELDS = (
    "name",
    "topic",
    "locked",
    "announce",
    "ephemeral_seconds",
    "invite_link",
    "join_approval",
    "member_add_mode",
)
"""The changed settings a ``group.info`` carries as they are named in the change."""


def group_info(change: GroupChange, author_name: str | None) -> NetworkEvent | None:
    """What a change did that members see, or None when it did nothing they are told of.

    A new picture is ``picture``; a community link made or removed is ``linked_group`` /
    ``unlinked_group`` naming the child group (``type`` ``sub``), told to the community's members.
    """
    fields = {key: change.fields[key] for key in INFO_FIELDS if key in change.fields}
    if "picture_id" in change.fields:
        fields["picture"] = {"picture_id": change.fields["picture_id"], "removed": False}
    deleted = bool(change.fields.get("deleted"))
    linked = _link(change.linked[0]) if change.linked and change.kind == "link" else None
    unlinked = _link(change.unlinked[0]) if change.unlinked and change.kind == "unlink" else None
    told = fields or deleted or change.join or change.leave or change.promote or change.demote
    if not (told or linked or unlinked):
        return None
    return group_payloads.group_info(
        group_jid=change.group_jid,
        author=change.author,
        author_name=author_name,
        at=change.at,
        deleted=deleted,
        join=change.join,
        leave=change.leave,
        promote=change.promote,
        demote=change.demote,
        join_reason=change.join_reason if change.join else None,
        linked_group=linked,
        unlinked_group=unlinked,
        **fields,
    )


def _link(group_jid: str) -> dict[str, Any]:
    return {"group_jid": group_jid, "name": None, "type": "sub", "reason": None}


def history_sync(device_id: str, message_count: int) -> NetworkEvent:
    """The phone's answer to an on-demand history request: one chunk, counted as neonize counts
    (``history.py``); pushnames and statuses are not part of an on-demand answer."""
    data = {
        "device_id": device_id,
        "sync_type": "on_demand",
        "chunk_order": None,
        "progress": None,
        "conversation_count": 1 if message_count else 0,
        "message_count": message_count,
        "push_name_count": 0,
        "status_count": 0,
    }
    return NetworkEvent(name=EventName.HISTORY_SYNC, data=data)


def to_item(event: NetworkEvent) -> dict[str, Any]:
    """The JSON item the network keeps (and hands over) for a device: an attachment is named
    by its sha256, its bytes stay in the network's media store."""
    item: dict[str, Any] = {"name": event.name, "data": dict(event.data)}
    if event.attachment is not None:
        item["attachment"] = {k: v for k, v in asdict(event.attachment).items() if k != "data"}
    return item


def from_item(item: Mapping[str, Any], media: Callable[[str], bytes] | None = None) -> NetworkEvent:
    """The event of an item; ``media`` gives the bytes of an attachment by sha256."""
    described = item.get("attachment")
    attachment = None
    if described is not None and media is not None:
        attachment = ReceivedMedia(
            **{**described, "kind": MediaKind(described["kind"]), "data": media(described["sha256"])}
        )
    return NetworkEvent(name=EventName(item["name"]), data=item["data"], attachment=attachment)


def poll_vote(poll_id: str, chat_jid: str, voter_jid: str, chosen: list[str], at: float) -> NetworkEvent:
    """A vote on a poll, as the devices of the chat's other people see it: the texts chosen
    (the real network sends hashes, which neonize's adapter maps back to these)."""
    return payloads.poll_vote(
        message_id=poll_id, chat_jid=chat_jid, voter=voter_jid, selected_options=chosen, at=at
    )
