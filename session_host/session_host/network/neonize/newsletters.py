"""neonize's newsletter (channel) events → ``newsletter.*``."""

from __future__ import annotations

from typing import Any

from neonize.proto.Neonize_pb2 import (
    NewsletterJoin,
    NewsletterLeave,
    NewsletterLiveUpdate,
    NewsletterMessage,
    NewsletterMetadata,
    NewsletterMuteChange,
    NewsletterViewerMetadata,
)

from gateway.webhooks.catalog import EventName

from ..payloads import iso_utc_or_none
from ..port import NetworkEvent
from .events import EventContext, enum_name
from .jids import jid_str


def _muted(message: NewsletterViewerMetadata | NewsletterMuteChange) -> bool | None:
    mute = enum_name(message, "Mute")
    return None if mute is None else mute == "on"


def _metadata(meta: NewsletterMetadata) -> dict[str, Any]:
    thread = meta.ThreadMeta
    viewer = meta.ViewerMeta if meta.HasField("ViewerMeta") else None
    return {
        "newsletter_jid": jid_str(meta.ID),
        "name": thread.Name.Text,
        "description": thread.Description.Text,
        "invite_code": thread.InviteCode or None,
        "subscriber_count": thread.SubscriberCount,
        "verified": enum_name(thread, "VerificationState") == "verified",
        "state": enum_name(meta.State, "Type"),
        "role": enum_name(viewer, "Role") if viewer is not None else None,
        "muted": _muted(viewer) if viewer is not None else None,
        "created_at": iso_utc_or_none(thread.CreationTime),
    }


def newsletter_join(_ctx: EventContext, ev: NewsletterJoin) -> NetworkEvent:
    """The account followed (or created) a channel: the channel as it is now."""
    return NetworkEvent(name=EventName.NEWSLETTER_JOIN, data=_metadata(ev.NewsletterMetadata))


def newsletter_leave(_ctx: EventContext, ev: NewsletterLeave) -> NetworkEvent:
    data = {"newsletter_jid": jid_str(ev.ID), "role": enum_name(ev, "Role")}
    return NetworkEvent(name=EventName.NEWSLETTER_LEAVE, data=data)


def newsletter_mute_change(_ctx: EventContext, ev: NewsletterMuteChange) -> NetworkEvent:
    data = {"newsletter_jid": jid_str(ev.ID), "muted": _muted(ev)}
    return NetworkEvent(name=EventName.NEWSLETTER_MUTE_CHANGE, data=data)


def _live_message(message: NewsletterMessage) -> dict[str, Any]:
    return {
        "server_id": message.MessageServerID,
        "views_count": message.ViewsCount,
        "reactions": {reaction.type: reaction.count for reaction in message.ReactionCounts},
    }


def newsletter_live_update(_ctx: EventContext, ev: NewsletterLiveUpdate) -> NetworkEvent:
    """New view and reaction counts of a channel's posts (after subscribing to live updates)."""
    data = {
        "newsletter_jid": jid_str(ev.JID),
        "timestamp": iso_utc_or_none(ev.TIME),
        "messages": [_live_message(message) for message in ev.Messages],
    }
    return NetworkEvent(name=EventName.NEWSLETTER_LIVE_UPDATE, data=data)
