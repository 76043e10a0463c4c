"""neonize's group events → ``group.info`` (something changed) and ``group.joined``.

A ``group.info`` carries only what changed: every field the change did not touch is
``null`` (the lists are empty). People come as whatsmeow names them: phone JIDs, or LIDs in
groups that hide phone numbers (a participant's phone JID is used when the network gives it).
"""

from __future__ import annotations

from typing import Any

from neonize.proto.Neonize_pb2 import (
    GroupEphemeral,
    GroupInfo,
    GroupInfoEvent,
    GroupLinkChange,
    GroupTopic,
    JoinedGroup,
)

from .. import group_payloads
from ..port import NetworkEvent
from .events import EventContext, enum_name
from .jids import jid_str, prefer_phone


def topic_of(topic: GroupTopic) -> str:
    """The group description; empty when it was removed."""
    return "" if topic.TopicDeleted else topic.Topic


def ephemeral_seconds(ephemeral: GroupEphemeral) -> int:
    """The disappearing-messages timer in seconds; 0 when it is off."""
    return ephemeral.DisappearingTimer if ephemeral.IsEphemeral else 0


def _link(change: GroupLinkChange) -> dict[str, Any]:
    return {
        "group_jid": jid_str(change.Group.JID),
        "name": change.Group.GroupName.Name or None,
        "type": enum_name(change, "Type"),
        "reason": change.UnlinkReason or None,
    }


def group_info(_ctx: EventContext, ev: GroupInfoEvent) -> NetworkEvent:
    """Settings, description, membership or community links of a group changed."""
    return group_payloads.group_info(
        group_jid=jid_str(ev.JID),
        author=jid_str(ev.Sender) if ev.HasField("Sender") else None,
        author_name=ev.Notify or None,
        at=ev.Timestamp,
        name=ev.Name.Name if ev.HasField("Name") else None,
        topic=topic_of(ev.Topic) if ev.HasField("Topic") else None,
        locked=ev.Locked.isLocked if ev.HasField("Locked") else None,
        announce=ev.Announce.IsAnnounce if ev.HasField("Announce") else None,
        ephemeral_seconds=ephemeral_seconds(ev.Ephemeral) if ev.HasField("Ephemeral") else None,
        deleted=ev.HasField("Delete") and ev.Delete.Deleted,
        invite_link=ev.NewInviteLink if ev.HasField("NewInviteLink") else None,
        join=[jid_str(jid) for jid in ev.Join],
        leave=[jid_str(jid) for jid in ev.Leave],
        promote=[jid_str(jid) for jid in ev.Promote],
        demote=[jid_str(jid) for jid in ev.Demote],
        join_reason=ev.JoinReason or None,
        linked_group=_link(ev.Link) if ev.HasField("Link") else None,
        unlinked_group=_link(ev.Unlink) if ev.HasField("Unlink") else None,
    )


def _participants(info: GroupInfo) -> list[dict[str, Any]]:
    return [
        {
            "jid": jid_str(prefer_phone(person.JID, person.PhoneNumber)),
            "is_admin": person.IsAdmin,
            "is_super_admin": person.IsSuperAdmin,
        }
        for person in info.Participants
    ]


def joined_group(_ctx: EventContext, ev: JoinedGroup) -> NetworkEvent:
    """The account was added to a group, joined one, or created one: the group as it is now."""
    info = ev.GroupInfo
    author = prefer_phone(ev.Sender, ev.SenderPN) if ev.HasField("Sender") else None
    return group_payloads.group_joined(
        group_jid=jid_str(info.JID),
        name=info.GroupName.Name,
        topic=topic_of(info.GroupTopic),
        owner=jid_str(prefer_phone(info.OwnerJID, info.OwnerPN)),
        created_at=info.GroupCreated,
        locked=info.GroupLocked.isLocked,
        announce=info.GroupAnnounce.IsAnnounce,
        ephemeral_seconds=ephemeral_seconds(info.GroupEphemeral),
        is_community=info.GroupParent.IsParent,
        community_jid=jid_str(info.GroupLinkedParent.LinkedParentJID),
        participants=_participants(info),
        reason=ev.Reason or None,
        author=jid_str(author),
    )
