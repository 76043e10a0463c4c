"""The contract of every device command: the model of its arguments and of its result.

The API functions build the arguments (:class:`~.base.CommandArgs`) and the bus client
serializes them; the session host parses them once, before a handler runs, and the handler
answers the result model (:class:`~.base.CommandResult`), which the bus client parses once
when the reply comes back. :data:`CONTRACTS` has one entry per :class:`CommandName` (a unit
test keeps it complete); the constants below name them for callers, so their types follow.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from gateway.bus.contracts import groups, messages, sessions, status
from gateway.bus.contracts.base import CommandArgs, CommandResult, Contract, Done, NoArgs
from gateway.bus.names import CommandName

# Sessions.
CONNECT = Contract(CommandName.CONNECT, NoArgs, Done)
QR = Contract(CommandName.QR, NoArgs, sessions.QrCode)
PAIR_PHONE = Contract(CommandName.PAIR_PHONE, sessions.PairPhoneArgs, sessions.PairCode)
DISCONNECT = Contract(CommandName.DISCONNECT, NoArgs, Done)
RECONNECT = Contract(CommandName.RECONNECT, NoArgs, Done)
LOGOUT = Contract(CommandName.LOGOUT, NoArgs, Done)
DELETE = Contract(CommandName.DELETE, NoArgs, Done)
PING = Contract(CommandName.PING, NoArgs, sessions.Pong)
# Messages.
MARK_READ = Contract(CommandName.MARK_READ, messages.MarkReadArgs, Done)
SEND_TEXT = Contract(CommandName.SEND_TEXT, messages.SendTextArgs, messages.SendOutcome)
DELETE_MESSAGE = Contract(CommandName.DELETE_MESSAGE, messages.DeleteMessageArgs, messages.DeletedMessage)
SYNC_HISTORY = Contract(CommandName.SYNC_HISTORY, messages.SyncHistoryArgs, messages.HistoryRequested)
# Groups and communities.
CREATE_GROUP = Contract(CommandName.CREATE_GROUP, groups.CreateGroupArgs, groups.CreatedGroup)
LIST_GROUPS = Contract(CommandName.LIST_GROUPS, NoArgs, groups.GroupList)
GROUP_INFO = Contract(CommandName.GROUP_INFO, groups.GroupRef, groups.OneGroup)
GROUP_PARTICIPANTS = Contract(CommandName.GROUP_PARTICIPANTS, groups.ParticipantsArgs, groups.MemberOutcomes)
UPDATE_GROUP = Contract(CommandName.UPDATE_GROUP, groups.UpdateGroupArgs, groups.OneGroup)
GROUP_PICTURE = Contract(CommandName.GROUP_PICTURE, groups.PictureArgs, groups.PictureSet)
GROUP_EPHEMERAL = Contract(CommandName.GROUP_EPHEMERAL, groups.EphemeralArgs, groups.EphemeralSet)
GROUP_INVITE = Contract(CommandName.GROUP_INVITE, groups.InviteArgs, groups.InviteLink)
JOIN_GROUP = Contract(CommandName.JOIN_GROUP, groups.JoinArgs, groups.Joined)
LEAVE_GROUP = Contract(CommandName.LEAVE_GROUP, groups.GroupRef, Done)
LINK_GROUP = Contract(CommandName.LINK_GROUP, groups.CommunityLinkArgs, Done)
UNLINK_GROUP = Contract(CommandName.UNLINK_GROUP, groups.CommunityLinkArgs, Done)
GROUP_REQUESTS = Contract(CommandName.GROUP_REQUESTS, groups.GroupRef, groups.JoinRequestList)
ANSWER_GROUP_REQUESTS = Contract(CommandName.ANSWER_GROUP_REQUESTS, groups.PeopleArgs, groups.MemberOutcomes)
# Status (stories).
GET_STATUS_PRIVACY = Contract(CommandName.GET_STATUS_PRIVACY, NoArgs, status.StatusPrivacySetting)
SET_STATUS_PRIVACY = Contract(
    CommandName.SET_STATUS_PRIVACY, status.StatusPrivacyArgs, status.StatusPrivacySetting
)
PUBLISH_STATUS = Contract(CommandName.PUBLISH_STATUS, status.PublishStatusArgs, status.PublishedStatus)

CONTRACTS: Mapping[CommandName, Contract[Any, Any]] = MappingProxyType(
    {
        contract.name: contract
        for contract in (
            CONNECT,
            QR,
            PAIR_PHONE,
            DISCONNECT,
            RECONNECT,
            LOGOUT,
            DELETE,
            PING,
            MARK_READ,
            SEND_TEXT,
            DELETE_MESSAGE,
            SYNC_HISTORY,
            CREATE_GROUP,
            LIST_GROUPS,
            GROUP_INFO,
            GROUP_PARTICIPANTS,
            UPDATE_GROUP,
            GROUP_PICTURE,
            GROUP_EPHEMERAL,
            GROUP_INVITE,
            JOIN_GROUP,
            LEAVE_GROUP,
            LINK_GROUP,
            UNLINK_GROUP,
            GROUP_REQUESTS,
            ANSWER_GROUP_REQUESTS,
            GET_STATUS_PRIVACY,
            SET_STATUS_PRIVACY,
            PUBLISH_STATUS,
        )
    }
)
"""Every command's contract, by name."""

__all__ = [
    "CONTRACTS",
    "CommandArgs",
    "CommandResult",
    "Contract",
    "Done",
    "NoArgs",
    "groups",
    "messages",
    "sessions",
    "status",
]
