"""Which neonize event classes become catalog events, and the function that maps each.

:meth:`~.handlers.NetworkHandlers.bind` registers every class of :data:`MAPPED` on every
client before ``connect()`` (neonize tells the Go side which event codes to forward from
what is registered then), next to the session's own pairing and connection handlers.
:data:`IGNORED` names the classes neonize 0.5.2 decodes that stay unregistered, with the
reason, so a test can check that no event neonize delivers is forgotten.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from neonize.events import (
    BlocklistChangeEv,
    BlocklistEv,
    CallAcceptEv,
    CallOfferEv,
    CallOfferNoticeEv,
    CallPreAcceptEv,
    CallRelayLatencyEV,
    CallTerminateEv,
    CallTransportEv,
    ChatPresenceEv,
    Device,
    GroupInfoEv,
    HistorySyncEv,
    IdentityChangeEv,
    JoinedGroupEv,
    KeepAliveRestoredEv,
    KeepAliveTimeoutEv,
    MessageEv,
    NewsletterJoinEv,
    NewsletterLeaveEv,
    NewsletterLiveUpdateEV,
    NewsLetterMessageMetaEv,
    NewsletterMuteChangeEv,
    OfflineSyncCompletedEv,
    OfflineSyncPreviewEv,
    PictureEv,
    PresenceEv,
    PrivacySettingsEv,
    QREv,
    ReceiptEv,
    RotateADVSecretEv,
    UndecryptableMessageEv,
    UnknownCallEventEV,
)

from ..port import NetworkEvent
from . import calls, events, groups, history, newsletters, privacy

Mapper = Callable[[events.EventContext, Any], NetworkEvent | None]

MAPPED: Mapping[type, Mapper] = MappingProxyType(
    {
        MessageEv: events.message,
        ReceiptEv: events.receipt,
        UndecryptableMessageEv: events.undecryptable,
        ChatPresenceEv: events.chat_presence,
        PresenceEv: events.presence,
        PictureEv: events.picture,
        IdentityChangeEv: events.identity_change,
        OfflineSyncPreviewEv: events.offline_sync_preview,
        OfflineSyncCompletedEv: events.offline_sync_completed,
        KeepAliveTimeoutEv: events.keepalive_timeout,
        KeepAliveRestoredEv: lambda ctx, _ev: events.keepalive_restored(ctx),
        GroupInfoEv: groups.group_info,
        JoinedGroupEv: groups.joined_group,
        CallOfferEv: calls.call_offer,
        CallOfferNoticeEv: calls.call_offer_notice,
        CallAcceptEv: calls.call_accept,
        CallPreAcceptEv: calls.call_pre_accept,
        CallTransportEv: calls.call_transport,
        CallRelayLatencyEV: calls.call_relay_latency,
        CallTerminateEv: calls.call_terminate,
        UnknownCallEventEV: calls.call_unknown,
        BlocklistEv: privacy.blocklist,
        PrivacySettingsEv: privacy.privacy_settings,
        NewsletterJoinEv: newsletters.newsletter_join,
        NewsletterLeaveEv: newsletters.newsletter_leave,
        NewsletterMuteChangeEv: newsletters.newsletter_mute_change,
        NewsletterLiveUpdateEV: newsletters.newsletter_live_update,
        HistorySyncEv: history.history_sync,
    }
)
"""Event class → the function building its catalog event (None: nothing to report)."""

IGNORED: Mapping[type, str] = MappingProxyType(
    {
        Device: "not an event: neonize keeps it as the client's own device (client.me)",
        QREv: "QR codes come from the client.event.qr callback; QREv arrives stale, after pairing",
        BlocklistChangeEv: "never sent alone: whatsmeow reports blocklist changes inside BlocklistEv",
        NewsLetterMessageMetaEv: "not an event: whatsmeow attaches it to a channel's messages",
        RotateADVSecretEv: "an internal key rotation of the pairing secret, not a catalog event",
    }
)
"""Event classes neonize 0.5.2 decodes that the adapter does not subscribe to, with why."""
