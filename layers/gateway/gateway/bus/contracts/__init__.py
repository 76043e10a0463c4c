"""The device commands: their names, and the contract of each, the model of its arguments and
of its result.

The API functions build the arguments (:class:`~.base.CommandArgs`) and the bus client
serializes them; the session host parses them once, before a handler runs, and the handler
answers the result model (:class:`~.base.CommandResult`), which the bus client parses once
when the reply comes back. :data:`CONTRACTS` has one entry per :class:`CommandName` (a unit
test keeps it complete); the constants below name them for callers, so their types follow.
A new command is a member of :class:`CommandName` and its line below, with its models in the
module of its family (:mod:`.calls`, :mod:`.contacts`, :mod:`.groups`, :mod:`.messages`,
:mod:`.profile`, :mod:`.sessions`, :mod:`.status`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from gateway.bus.contracts import calls, contacts, groups, messages, profile, sessions, status
from gateway.bus.contracts.base import CommandArgs, CommandResult, Done, NoArgs


class CommandName(StrEnum):
    """Device commands the session host executes; each one's arguments and result are the
    models of its contract (:data:`CONTRACTS`, below)."""

    CONNECT = "connect"  # take the device, start (or resume) its session
    QR = "qr"  # the QR code the pairing session shows
    PAIR_PHONE = "pair_phone"  # a pair code for a phone
    DISCONNECT = "disconnect"  # close the connection, keep the login
    RECONNECT = "reconnect"  # the supervised session's next attempt now, backoff reset
    LOGOUT = "logout"  # unlink from the phone, forget the credentials
    DELETE = "delete"  # logout if possible, stop everything; the API deletes the record
    PING = "ping"  # answered by the host without touching the network (bench, health)
    MARK_READ = "mark_read"  # read receipts to the sender
    SEND_TEXT = "send_text"  # a send of the outbox: waits for its dispatch up to the deadline
    DELETE_MESSAGE = "delete_message"  # a message the device sent, for everyone or for me
    SYNC_HISTORY = "sync_history"  # ask the phone for a chat's history
    # Groups and communities.
    CREATE_GROUP = "create_group"
    LIST_GROUPS = "list_groups"
    GROUP_INFO = "group_info"
    GROUP_PARTICIPANTS = "group_participants"
    UPDATE_GROUP = "update_group"
    GROUP_PICTURE = "group_picture"
    GROUP_EPHEMERAL = "group_ephemeral"
    GROUP_INVITE = "group_invite"
    JOIN_GROUP = "join_group"
    LEAVE_GROUP = "leave_group"
    LINK_GROUP = "link_group"
    UNLINK_GROUP = "unlink_group"
    GROUP_REQUESTS = "group_requests"
    ANSWER_GROUP_REQUESTS = "answer_group_requests"
    # Status (stories).
    GET_STATUS_PRIVACY = "get_status_privacy"
    SET_STATUS_PRIVACY = "set_status_privacy"
    PUBLISH_STATUS = "publish_status"
    # Reactions and edits.
    REACT_MESSAGE = "react_message"  # a reaction to a message of a chat, or its removal
    EDIT_MESSAGE = "edit_message"  # a new text for a text the device sent, within the window
    # Presence and profile of the linked account.
    SET_PRESENCE = "set_presence"
    SUBSCRIBE_PRESENCE = "subscribe_presence"
    GET_PROFILE = "get_profile"
    UPDATE_PROFILE = "update_profile"
    SET_PROFILE_PICTURE = "set_profile_picture"
    # Contacts, LIDs and blocking.
    CHECK_CONTACTS = "check_contacts"  # which phone numbers have an account
    GET_CONTACT = "get_contact"  # one account's profile, its phone JID and LID
    BLOCK_CONTACT = "block_contact"
    UNBLOCK_CONTACT = "unblock_contact"
    GET_BLOCKLIST = "get_blocklist"
    # Calls.
    REJECT_CALL = "reject_call"


A = TypeVar("A", bound=CommandArgs)
R = TypeVar("R", bound=CommandResult)


@dataclass(frozen=True)
class Contract(Generic[A, R]):
    """What a command takes and answers; the bus client sends ``args`` and parses ``result``,
    the session host parses ``args`` before a handler runs."""

    name: CommandName
    args: type[A]
    result: type[R]


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
CREATE_GROUP = Contract(CommandName.CREATE_GROUP, groups.CreateGroupArgs, groups.GroupCreated)
LIST_GROUPS = Contract(CommandName.LIST_GROUPS, NoArgs, groups.GroupList)
GROUP_INFO = Contract(CommandName.GROUP_INFO, groups.GroupRef, groups.OneGroup)
GROUP_PARTICIPANTS = Contract(CommandName.GROUP_PARTICIPANTS, groups.ParticipantsArgs, groups.MemberOutcomes)
UPDATE_GROUP = Contract(CommandName.UPDATE_GROUP, groups.UpdateGroupArgs, groups.OneGroup)
GROUP_PICTURE = Contract(CommandName.GROUP_PICTURE, groups.PictureArgs, groups.PictureSet)
GROUP_EPHEMERAL = Contract(CommandName.GROUP_EPHEMERAL, groups.EphemeralArgs, groups.EphemeralSet)
GROUP_INVITE = Contract(CommandName.GROUP_INVITE, groups.InviteArgs, groups.InviteLink)
JOIN_GROUP = Contract(CommandName.JOIN_GROUP, groups.JoinArgs, groups.JoinOutcome)
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
# Reactions and edits.
REACT_MESSAGE = Contract(CommandName.REACT_MESSAGE, messages.ReactArgs, messages.Reacted)
EDIT_MESSAGE = Contract(CommandName.EDIT_MESSAGE, messages.EditMessageArgs, messages.EditedMessage)
# Presence and profile of the linked account.
SET_PRESENCE = Contract(CommandName.SET_PRESENCE, profile.SetPresenceArgs, profile.PresenceSet)
SUBSCRIBE_PRESENCE = Contract(
    CommandName.SUBSCRIBE_PRESENCE, profile.SubscribePresenceArgs, profile.PresenceSubscribed
)
GET_PROFILE = Contract(CommandName.GET_PROFILE, NoArgs, profile.Profile)
UPDATE_PROFILE = Contract(CommandName.UPDATE_PROFILE, profile.UpdateProfileArgs, profile.Profile)
SET_PROFILE_PICTURE = Contract(
    CommandName.SET_PROFILE_PICTURE, profile.ProfilePictureArgs, profile.ProfilePictureSet
)
# Contacts, LIDs and blocking.
CHECK_CONTACTS = Contract(CommandName.CHECK_CONTACTS, contacts.CheckNumbersArgs, contacts.NumberChecks)
GET_CONTACT = Contract(CommandName.GET_CONTACT, contacts.ContactRef, contacts.ContactInfo)
BLOCK_CONTACT = Contract(CommandName.BLOCK_CONTACT, contacts.ContactRef, contacts.BlockState)
UNBLOCK_CONTACT = Contract(CommandName.UNBLOCK_CONTACT, contacts.ContactRef, contacts.BlockState)
GET_BLOCKLIST = Contract(CommandName.GET_BLOCKLIST, NoArgs, contacts.Blocklist)
# Calls.
REJECT_CALL = Contract(CommandName.REJECT_CALL, calls.RejectCallArgs, calls.CallRejected)

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
            REACT_MESSAGE,
            EDIT_MESSAGE,
            # Presence and profile of the linked account.
            SET_PRESENCE,
            SUBSCRIBE_PRESENCE,
            GET_PROFILE,
            UPDATE_PROFILE,
            SET_PROFILE_PICTURE,
            # Contacts.
            CHECK_CONTACTS,
            GET_CONTACT,
            BLOCK_CONTACT,
            UNBLOCK_CONTACT,
            GET_BLOCKLIST,
            # Calls.
            REJECT_CALL,
        )
    }
)
"""Every command's contract, by name."""

__all__ = [
    "CONTRACTS",
    "A",
    "CommandArgs",
    "CommandName",
    "CommandResult",
    "Contract",
    "Done",
    "NoArgs",
    "R",
    "calls",
    "contacts",
    "groups",
    "messages",
    "profile",
    "sessions",
    "status",
]
