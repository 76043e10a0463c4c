"""The neonize adapter's account-wide payloads: blocklist, privacy, channels, history sync.

Events are built from neonize's own protobuf classes, as the Go bridge hands them to Python.
"""

from __future__ import annotations

from fakes_neonize import CTX, DEVICE_ID, PEER_PHONE, jid
from neonize.events import (
    BlocklistEv,
    HistorySyncEv,
    NewsletterJoinEv,
    NewsletterLeaveEv,
    NewsletterLiveUpdateEV,
    NewsletterMuteChangeEv,
    PrivacySettingsEv,
)
from neonize.proto.Neonize_pb2 import (
    BlocklistChange,
    BlocklistEvent,
    NewsletterMessage,
    NewsletterMetadata,
    NewsletterMuteState,
    NewsletterRole,
    NewsletterText,
    NewsletterThreadMetadata,
    NewsletterViewerMetadata,
    PrivacySettings,
    Reaction,
    WrappedNewsletterState,
)
from neonize.proto.waHistorySync.WAWebProtobufsHistorySync_pb2 import (
    Conversation,
    HistorySync,
    HistorySyncMsg,
    Pushname,
)

from session_host.network.neonize import history, newsletters, privacy

AT = 1_700_000_000  # 2023-11-14T22:13:20.000Z
CHANNEL = jid("120363000000000009", "newsletter")
CHANNEL_JID = "120363000000000009@newsletter"

# --- privacy ------------------------------------------------------------------------------


def test_blocklist_changes_name_each_person_and_action() -> None:
    # Given a contact blocked and another unblocked, then a change the network does not itemise
    changes = BlocklistEv(
        Action=BlocklistEvent.DEFAULT,
        DHASH="h2",
        PrevDHash="h1",
        Changes=[
            BlocklistChange(JID=PEER_PHONE, BlockAction=BlocklistChange.BLOCK),
            BlocklistChange(JID=jid("5511000000001"), BlockAction=BlocklistChange.UNBLOCK),
        ],
    )
    modified = BlocklistEv(Action=BlocklistEvent.MODIFY, DHASH="h3", PrevDHash="h2")
    # When they are mapped, Then the first lists the changes and the second asks for a refresh
    assert (privacy.blocklist(CTX, changes).name, dict(privacy.blocklist(CTX, changes).data)) == (
        "privacy.blocklist",
        {
            "changes": [
                {"jid": "5511999998888@s.whatsapp.net", "action": "block"},
                {"jid": "5511000000001@s.whatsapp.net", "action": "unblock"},
            ],
            "refresh_needed": False,
        },
    )
    assert dict(privacy.blocklist(CTX, modified).data) == {"changes": [], "refresh_needed": True}


def test_privacy_settings_list_every_setting_and_which_changed() -> None:
    # Given the last-seen setting changed to contacts
    settings = PrivacySettings(
        GroupAdd=PrivacySettings.CONTACTS,
        LastSeen=PrivacySettings.CONTACTS,
        Status=PrivacySettings.CONTACT_BLACKLIST,
        Profile=PrivacySettings.ALL,
        ReadReceipts=PrivacySettings.NONE,
        CallAdd=PrivacySettings.KNOWN,
        Online=PrivacySettings.MATCH_LAST_SEEN,
    )
    flags = ("GroupAdd", "LastSeen", "Status", "Profile", "ReadReceipts", "Online", "CallAdd")
    ev = PrivacySettingsEv(NewSettings=settings, **{f"{flag}Changed": flag == "LastSeen" for flag in flags})
    # When it is mapped
    event = privacy.privacy_settings(CTX, ev)
    # Then every setting is named in lowercase, and the changed one is listed
    assert (event.name, dict(event.data)) == (
        "privacy.settings",
        {
            "settings": {
                "group_add": "contacts",
                "last_seen": "contacts",
                "status": "contact_blacklist",
                "profile": "all",
                "read_receipts": "none",
                "call_add": "known",
                "online": "match_last_seen",
            },
            "changed": ["last_seen"],
        },
    )
    # And a setting the network left undefined is null
    undefined = PrivacySettingsEv(NewSettings=PrivacySettings(Online=PrivacySettings.UNDEFINED))
    assert privacy.privacy_settings(CTX, undefined).data["settings"]["online"] is None


# --- newsletters --------------------------------------------------------------------------


def test_newsletter_join_describes_the_channel() -> None:
    # Given the account following a verified channel
    metadata = NewsletterMetadata(
        ID=CHANNEL,
        State=WrappedNewsletterState(Type=WrappedNewsletterState.ACTIVE),
        ThreadMeta=NewsletterThreadMetadata(
            CreationTime=AT,
            InviteCode="0029VaAbCdEf",
            Name=NewsletterText(Text="Daily news"),
            Description=NewsletterText(Text="Every morning"),
            SubscriberCount=1200,
            VerificationState=NewsletterThreadMetadata.VERIFIED,
        ),
        ViewerMeta=NewsletterViewerMetadata(
            Mute=NewsletterMuteState.Value("OFF"), Role=NewsletterRole.Value("SUBSCRIBER")
        ),
    )
    # When it is mapped
    event = newsletters.newsletter_join(CTX, NewsletterJoinEv(NewsletterMetadata=metadata))
    # Then the channel is described as it is now
    assert (event.name, dict(event.data)) == (
        "newsletter.join",
        {
            "newsletter_jid": CHANNEL_JID,
            "name": "Daily news",
            "description": "Every morning",
            "invite_code": "0029VaAbCdEf",
            "subscriber_count": 1200,
            "verified": True,
            "state": "active",
            "role": "subscriber",
            "muted": False,
            "created_at": "2023-11-14T22:13:20.000Z",
        },
    )


def test_newsletter_leave_mute_and_live_update() -> None:
    # Given a channel left, one muted, and new counts on a channel's posts
    left = NewsletterLeaveEv(ID=CHANNEL, Role=NewsletterRole.Value("ADMIN"))
    muted = NewsletterMuteChangeEv(ID=CHANNEL, Mute=NewsletterMuteState.Value("ON"))
    post = NewsletterMessage(
        MessageServerID=105,
        ViewsCount=40,
        ReactionCounts=[Reaction(type="👍", count=3), Reaction(type="❤", count=1)],
    )
    update = NewsletterLiveUpdateEV(JID=CHANNEL, TIME=AT, Messages=[post])
    # When they are mapped
    mapped = [
        newsletters.newsletter_leave(CTX, left),
        newsletters.newsletter_mute_change(CTX, muted),
        newsletters.newsletter_live_update(CTX, update),
    ]
    # Then each names the channel and what changed
    assert [(event.name, dict(event.data)) for event in mapped] == [
        ("newsletter.leave", {"newsletter_jid": CHANNEL_JID, "role": "admin"}),
        ("newsletter.mute_change", {"newsletter_jid": CHANNEL_JID, "muted": True}),
        (
            "newsletter.live_update",
            {
                "newsletter_jid": CHANNEL_JID,
                "timestamp": "2023-11-14T22:13:20.000Z",
                "messages": [{"server_id": 105, "views_count": 40, "reactions": {"👍": 3, "❤": 1}}],
            },
        ),
    ]


# --- history sync -------------------------------------------------------------------------


def test_history_sync_counts_what_the_chunk_carries_without_copying_it() -> None:
    # Given a chunk of the initial history with two chats, three messages and two push names
    chunk = HistorySync(
        syncType=HistorySync.INITIAL_BOOTSTRAP,
        chunkOrder=1,
        progress=40,
        conversations=[
            Conversation(ID="5511999998888@s.whatsapp.net", messages=[HistorySyncMsg(), HistorySyncMsg()]),
            Conversation(ID="120363000000000001@g.us", messages=[HistorySyncMsg()]),
        ],
        pushnames=[
            Pushname(ID="5511999998888@s.whatsapp.net", pushname="Maria"),
            Pushname(ID="x", pushname="y"),
        ],
    )
    # When it is mapped
    event = history.history_sync(CTX, HistorySyncEv(Data=chunk))
    # Then the payload counts them and holds no message
    assert (event.name, dict(event.data)) == (
        "history.sync",
        {
            "device_id": DEVICE_ID,
            "sync_type": "initial_bootstrap",
            "chunk_order": 1,
            "progress": 40,
            "conversation_count": 2,
            "message_count": 3,
            "push_name_count": 2,
            "status_count": 0,
        },
    )
