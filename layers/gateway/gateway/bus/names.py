"""The names of the device commands, apart from their contracts (which name them)."""

from __future__ import annotations

from enum import StrEnum


class CommandName(StrEnum):
    """Device commands the session host executes; each one's arguments and result are the
    models of its contract (:data:`gateway.bus.contracts.CONTRACTS`)."""

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
