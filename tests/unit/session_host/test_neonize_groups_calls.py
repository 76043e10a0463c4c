"""The neonize adapter's group and call payloads, from neonize's own protobuf classes."""

from __future__ import annotations

import pytest
from fakes_neonize import CTX, EMPTY, GROUP, PEER_LID, PEER_PHONE, jid
from neonize.events import (
    CallAcceptEv,
    CallOfferEv,
    CallOfferNoticeEv,
    CallPreAcceptEv,
    CallRelayLatencyEV,
    CallTerminateEv,
    CallTransportEv,
    GroupInfoEv,
    JoinedGroupEv,
    PictureEv,
    UnknownCallEventEV,
)
from neonize.proto.Neonize_pb2 import (
    BasicCallMeta,
    CallRemoteMeta,
    GroupAnnounce,
    GroupDelete,
    GroupEphemeral,
    GroupInfo,
    GroupLinkChange,
    GroupLinkTarget,
    GroupLocked,
    GroupName,
    GroupParent,
    GroupParticipant,
    GroupTopic,
    Node,
    NodeAttrs,
)

from session_host.network.neonize import calls, events, groups

AT = 1_700_000_000  # 2023-11-14T22:13:20.000Z
AT_ISO = "2023-11-14T22:13:20.000Z"
PHONE_JID = "5511999998888@s.whatsapp.net"
GROUP_JID = "120363000000000001@g.us"

# --- groups -------------------------------------------------------------------------------


def test_group_info_carries_only_what_changed() -> None:
    # Given a change of name and description by an admin
    ev = GroupInfoEv(
        JID=GROUP,
        Notify="Ana",
        Sender=PEER_PHONE,
        Timestamp=AT,
        Name=GroupName(Name="Trip 2024"),
        Topic=GroupTopic(Topic="Plans for the trip", TopicDeleted=False),
    )
    # When it is mapped
    event = groups.group_info(CTX, ev)
    # Then the changed fields are set and every other one is null or empty
    assert (event.name, dict(event.data)) == (
        "group.info",
        {
            "group_jid": GROUP_JID,
            "author": PHONE_JID,
            "author_name": "Ana",
            "timestamp": AT_ISO,
            "name": "Trip 2024",
            "topic": "Plans for the trip",
            "locked": None,
            "announce": None,
            "ephemeral_seconds": None,
            "deleted": False,
            "invite_link": None,
            "join": [],
            "leave": [],
            "promote": [],
            "demote": [],
            "join_reason": None,
            "linked_group": None,
            "unlinked_group": None,
            "join_approval": None,
            "member_add_mode": None,
            "picture": None,
        },
    )


def test_a_groups_new_picture_is_a_group_info_and_a_contacts_stays_contact_picture() -> None:
    # Given whatsmeow's one picture event, for a group and for a contact
    group_picture = PictureEv(JID=GROUP, Author=PEER_PHONE, Timestamp=AT, Remove=False)
    contact_picture = PictureEv(JID=PEER_PHONE, Author=PEER_PHONE, Timestamp=AT, Remove=True)
    # When they are mapped
    group_event = events.picture(CTX, group_picture)
    contact_event = events.picture(CTX, contact_picture)
    # Then the group's is told like every other change of the group, the contact's as before
    assert group_event.name == "group.info"
    assert group_event.data["group_jid"] == GROUP_JID
    assert group_event.data["author"] == PHONE_JID
    assert group_event.data["picture"] == {"picture_id": None, "removed": False}
    assert (contact_event.name, contact_event.data["jid"], contact_event.data["removed"]) == (
        "contact.picture",
        PHONE_JID,
        True,
    )


def test_group_info_membership_settings_and_community_links() -> None:
    # Given people joining and leaving, settings flipped, a removed description, a new link
    ev = GroupInfoEv(
        JID=GROUP,
        Timestamp=AT,
        Topic=GroupTopic(Topic="old", TopicDeleted=True),
        Locked=GroupLocked(isLocked=True),
        Announce=GroupAnnounce(IsAnnounce=False),
        Ephemeral=GroupEphemeral(IsEphemeral=True, DisappearingTimer=86_400),
        NewInviteLink="https://chat.whatsapp.com/AbCdEf",
        Join=[PEER_PHONE, PEER_LID],
        Leave=[jid("5511000000001")],
        Promote=[jid("5511000000002")],
        Demote=[jid("5511000000003")],
        JoinReason="invite",
        Link=GroupLinkChange(
            Type=GroupLinkChange.SUB,
            UnlinkReason="",
            Group=GroupLinkTarget(JID=jid("120363000000000002", "g.us"), GroupName=GroupName(Name="Sub")),
        ),
    )
    # When it is mapped
    data = groups.group_info(CTX, ev).data
    # Then each change is named, people as the network gave them
    assert (data["author"], data["author_name"]) == (None, None)
    assert (data["topic"], data["locked"], data["announce"], data["ephemeral_seconds"]) == (
        "",
        True,
        False,
        86_400,
    )
    assert data["invite_link"] == "https://chat.whatsapp.com/AbCdEf"
    assert data["join"] == [PHONE_JID, "207180606656725@lid"]
    assert (data["leave"], data["promote"], data["demote"]) == (
        ["5511000000001@s.whatsapp.net"],
        ["5511000000002@s.whatsapp.net"],
        ["5511000000003@s.whatsapp.net"],
    )
    assert data["join_reason"] == "invite"
    assert data["linked_group"] == {
        "group_jid": "120363000000000002@g.us",
        "name": "Sub",
        "type": "sub",
        "reason": None,
    }
    # And a deleted group and a disappearing timer turned off say so
    gone = groups.group_info(CTX, GroupInfoEv(JID=GROUP, Delete=GroupDelete(Deleted=True, DeletedReason="")))
    off = groups.group_info(CTX, GroupInfoEv(JID=GROUP, Ephemeral=GroupEphemeral(IsEphemeral=False)))
    assert gone.data["deleted"] is True
    assert off.data["ephemeral_seconds"] == 0


def test_joined_group_describes_the_group_with_phone_jids_for_participants() -> None:
    # Given the account added to a group whose participants arrive as LIDs with phone numbers
    info = GroupInfo(
        JID=GROUP,
        OwnerJID=PEER_LID,
        OwnerPN=PEER_PHONE,
        GroupName=GroupName(Name="Family"),
        GroupTopic=GroupTopic(Topic="Hi all", TopicDeleted=False),
        GroupLocked=GroupLocked(isLocked=False),
        GroupAnnounce=GroupAnnounce(IsAnnounce=True),
        GroupEphemeral=GroupEphemeral(IsEphemeral=False, DisappearingTimer=0),
        GroupParent=GroupParent(IsParent=False),
        GroupCreated=float(AT),
        Participants=[
            GroupParticipant(JID=PEER_LID, PhoneNumber=PEER_PHONE, IsAdmin=True, IsSuperAdmin=True),
            GroupParticipant(JID=jid("12025550123"), PhoneNumber=EMPTY, IsAdmin=False, IsSuperAdmin=False),
        ],
    )
    ev = JoinedGroupEv(Reason="invite", Type="invite", CreateKey="", GroupInfo=info)
    # When it is mapped
    event = groups.joined_group(CTX, ev)
    # Then it is the group as it is now
    assert (event.name, dict(event.data)) == (
        "group.joined",
        {
            "group_jid": GROUP_JID,
            "name": "Family",
            "topic": "Hi all",
            "owner": PHONE_JID,
            "created_at": AT_ISO,
            "locked": False,
            "announce": True,
            "ephemeral_seconds": 0,
            "is_community": False,
            "community_jid": None,
            "participants": [
                {"jid": PHONE_JID, "is_admin": True, "is_super_admin": True},
                {"jid": "12025550123@s.whatsapp.net", "is_admin": False, "is_super_admin": False},
            ],
            "reason": "invite",
            "author": None,
        },
    )


# --- calls --------------------------------------------------------------------------------


def meta(call_id: str = "CALL0001") -> BasicCallMeta:
    """A call from a contact the network names by a LID, with the phone JID as the alternative."""
    return BasicCallMeta(
        **{"from": PEER_LID}, timestamp=AT, callCreator=PEER_LID, callCreatorAlt=PEER_PHONE, callID=call_id
    )


REMOTE = CallRemoteMeta(remotePlatform="iphone", remoteVersion="2.24.1")
COMMON = {"call_id": "CALL0001", "from": PHONE_JID, "creator": PHONE_JID, "timestamp": AT_ISO}


def test_call_offer_prefers_phone_jids_and_reads_video_and_group_from_the_offer() -> None:
    # Given a voice call offer from a LID caller, and a video group call offer
    voice = CallOfferEv(
        basicCallMeta=meta(), callRemoteMeta=REMOTE, data=Node(Tag="offer", Nodes=[Node(Tag="audio")])
    )
    group_jid = NodeAttrs(name="group-jid", jid=GROUP)
    video = CallOfferEv(
        basicCallMeta=meta(),
        callRemoteMeta=CallRemoteMeta(remotePlatform="", remoteVersion=""),
        data=Node(Tag="offer", Attrs=[group_jid], Nodes=[Node(Tag="video")]),
    )
    # When they are mapped, Then caller and creator are the phone JID
    assert (calls.call_offer(CTX, voice).name, dict(calls.call_offer(CTX, voice).data)) == (
        "call.offer",
        {
            **COMMON,
            "is_video": False,
            "is_group": False,
            "remote_platform": "iphone",
            "remote_version": "2.24.1",
        },
    )
    # And the video group call says so, with an unknown remote as null
    assert dict(calls.call_offer(CTX, video).data) == {
        **COMMON,
        "is_video": True,
        "is_group": True,
        "remote_platform": None,
        "remote_version": None,
    }


def test_a_group_call_notice_is_a_call_offer() -> None:
    # Given the notice of a group video call
    notice = CallOfferNoticeEv(
        basicCallMeta=meta(), media="video", type="group", data=Node(Tag="offer_notice")
    )
    # When it is mapped, Then it is call.offer for a group video call
    event = calls.call_offer_notice(CTX, notice)
    assert (event.name, dict(event.data)) == (
        "call.offer",
        {**COMMON, "is_video": True, "is_group": True, "remote_platform": None, "remote_version": None},
    )


def test_call_signalling_events_share_the_common_fields() -> None:
    # Given the rest of a call's life on the network
    data = Node(Tag="x")
    mapped = [
        calls.call_pre_accept(CTX, CallPreAcceptEv(basicCallMeta=meta(), callRemoteMeta=REMOTE, data=data)),
        calls.call_accept(CTX, CallAcceptEv(basicCallMeta=meta(), callRemoteMeta=REMOTE, data=data)),
        calls.call_transport(CTX, CallTransportEv(basicCallMeta=meta(), callRemoteMeta=REMOTE, data=data)),
        calls.call_relay_latency(CTX, CallRelayLatencyEV(basicCallMeta=meta(), data=data)),
        calls.call_terminate(CTX, CallTerminateEv(basicCallMeta=meta(), reason="timeout", data=data)),
    ]
    # When they are mapped, Then each has its name, the common fields, and its own
    remote = {"remote_platform": "iphone", "remote_version": "2.24.1"}
    assert [(event.name, dict(event.data)) for event in mapped] == [
        ("call.pre_accept", {**COMMON, **remote}),
        ("call.accept", {**COMMON, **remote}),
        ("call.transport", {**COMMON, **remote}),
        ("call.relay_latency", COMMON),
        ("call.terminate", {**COMMON, "reason": "timeout"}),
    ]


def test_a_call_started_by_someone_else_names_sender_and_creator_apart() -> None:
    # Given a group call node sent by one participant about a call another one started
    ev = CallAcceptEv(
        basicCallMeta=BasicCallMeta(
            **{"from": jid("5511000000009")},
            timestamp=AT,
            callCreator=PEER_LID,
            callCreatorAlt=PEER_PHONE,
            callID="CALL0002",
        ),
        callRemoteMeta=REMOTE,
        data=Node(Tag="accept"),
    )
    # When it is mapped, Then "from" is the sender and "creator" who started the call
    data = calls.call_accept(CTX, ev).data
    assert (data["from"], data["creator"]) == ("5511000000009@s.whatsapp.net", PHONE_JID)


def test_an_unknown_call_node_keeps_its_tag_and_what_identifies_the_call() -> None:
    # Given a <call> node around a child whatsmeow does not know
    child = Node(
        Tag="video_upgrade",
        Attrs=[NodeAttrs(name="call-id", text="CALL0003"), NodeAttrs(name="call-creator", jid=PEER_PHONE)],
    )
    node = Node(
        Tag="call",
        Attrs=[NodeAttrs(name="from", jid=PEER_PHONE), NodeAttrs(name="t", text=str(AT))],
        Nodes=[child],
    )
    # When it is mapped
    event = calls.call_unknown(CTX, UnknownCallEventEV(node=node))
    # Then the call is identified and the unknown tag is named
    assert (event.name, dict(event.data)) == (
        "call.unknown",
        {
            "call_id": "CALL0003",
            "from": PHONE_JID,
            "creator": PHONE_JID,
            "timestamp": AT_ISO,
            "tag": "video_upgrade",
        },
    )


@pytest.mark.parametrize("at", ["\u00b9\u2077\u2070\u2070", "soon"])
def test_an_unknown_call_node_with_a_time_that_is_no_ascii_number_has_no_timestamp(at: str) -> None:
    # Given a <call> node whose "t" is not ASCII digits (str.isdigit() accepts superscripts,
    # which float() then refuses)
    node = Node(Tag="call", Attrs=[NodeAttrs(name="t", text=at)], Nodes=[Node(Tag="video_upgrade")])
    # When it is mapped, Then it maps without a timestamp instead of failing
    assert calls.call_unknown(CTX, UnknownCallEventEV(node=node)).data["timestamp"] is None
