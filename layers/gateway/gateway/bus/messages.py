"""What travels on the command bus: commands, replies, and their JSON form.

The wire form is versioned (``v``) so a host and the API functions can be deployed one after
the other. A failure's kind is a :class:`~gateway.failures.kinds.ErrorKind`; a ``REFUSED``
one names its group code in ``error_code``.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from gateway.failures.kinds import ErrorKind

WIRE_VERSION = 1


class CommandName(StrEnum):
    """Device commands the session host executes."""

    CONNECT = "connect"  # take the device, start (or resume) its session
    QR = "qr"  # the QR code the pairing session shows
    PAIR_PHONE = "pair_phone"  # args {phone}: a pair code for that phone
    DISCONNECT = "disconnect"  # close the connection, keep the login
    RECONNECT = "reconnect"  # the supervised session's next attempt now, backoff reset
    LOGOUT = "logout"  # unlink from the phone, forget the credentials
    DELETE = "delete"  # logout if possible, stop everything; the API deletes the record
    PING = "ping"  # answered by the host without touching the network (bench, health)
    MARK_READ = "mark_read"  # args {chat_jid, sender_jid, message_ids}: read receipts to the sender
    # args {send_key} of a send in the outbox (gateway.messages.outbox): waits for its dispatch
    # up to the deadline -> {status: "sent", message_id, chat_jid, sent_at, network_message_id}
    # or {status: "scheduled", message_id, chat_jid, scheduled_for} (it goes out later).
    SEND_TEXT = "send_text"
    # args {message_id (the gateway's or the network's), chat_jid, for_everyone} of a message
    # the device sent -> {message_id, network_message_id, chat_jid, for_everyone}
    DELETE_MESSAGE = "delete_message"
    SYNC_HISTORY = "sync_history"  # args {chat_jid, count}: ask the phone for history -> {chat_jid, count}
    # Groups and communities. ``group`` in a result is ``GroupInfo.to_json()`` of the session
    # host's network port; ``participants`` results are ``[MemberResult.to_json()]``. People
    # arrive as user JIDs or LIDs, already checked by the API.
    CREATE_GROUP = "create_group"  # args {name, participants, options{...}} -> {group, participants}
    LIST_GROUPS = "list_groups"  # -> {groups: [group]}
    GROUP_INFO = "group_info"  # args {group_jid} -> {group}
    GROUP_PARTICIPANTS = "group_participants"  # args {group_jid, action, participants} -> {participants}
    UPDATE_GROUP = "update_group"  # args {group_jid, settings{name?, topic?, ...}} -> {group}
    GROUP_PICTURE = "group_picture"  # args {group_jid, image_base64} -> {picture_id}
    GROUP_EPHEMERAL = "group_ephemeral"  # args {group_jid, duration_seconds} -> {duration_seconds}
    GROUP_INVITE = "group_invite"  # args {group_jid, reset} -> {invite_link}
    JOIN_GROUP = "join_group"  # args {code, group_jid?, inviter_jid?} -> {group_jid, pending_approval}
    LEAVE_GROUP = "leave_group"  # args {group_jid}
    LINK_GROUP = "link_group"  # args {community_jid, group_jid}
    UNLINK_GROUP = "unlink_group"  # args {community_jid, group_jid}
    GROUP_REQUESTS = "group_requests"  # args {group_jid} -> {requests: [{jid, requested_at}]}
    # args {group_jid, action, participants} -> {participants}
    ANSWER_GROUP_REQUESTS = "answer_group_requests"
    # Status (stories). Privacy ``{type, list}`` is ``StatusPrivacy.to_json()`` of the port.
    GET_STATUS_PRIVACY = "get_status_privacy"  # -> {type, list}
    SET_STATUS_PRIVACY = "set_status_privacy"  # args {type, list} -> {type, list} now in force
    # args {kind: "text", text, background_color?, font?} or {kind: "image"|"video", caption,
    # media_id (stored by the API, gateway.media.store) | url (fetched by the host)}
    # -> {message_id, chat_jid, timestamp}
    PUBLISH_STATUS = "publish_status"


GROUP_COMMANDS: frozenset[CommandName] = frozenset(
    {
        CommandName.CREATE_GROUP,
        CommandName.LIST_GROUPS,
        CommandName.GROUP_INFO,
        CommandName.GROUP_PARTICIPANTS,
        CommandName.UPDATE_GROUP,
        CommandName.GROUP_PICTURE,
        CommandName.GROUP_EPHEMERAL,
        CommandName.GROUP_INVITE,
        CommandName.JOIN_GROUP,
        CommandName.LEAVE_GROUP,
        CommandName.LINK_GROUP,
        CommandName.UNLINK_GROUP,
        CommandName.GROUP_REQUESTS,
        CommandName.ANSWER_GROUP_REQUESTS,
    }
)
"""The commands of groups and communities (their names are also the simulator's fault names)."""


@dataclass(frozen=True)
class DeviceSnapshot:
    """A device's session state as the host saw it when it answered.

    The field names are the device record's and the API view's, so both take it as it is
    (``dataclasses.asdict``).
    """

    status: str
    is_connected: bool
    is_logged_in: bool
    messaging_jid: str | None


@dataclass(frozen=True)
class Command:
    """One command for one device; ``deadline`` is epoch seconds on the sender's clock."""

    name: CommandName
    tenant_id: str
    device_id: str
    deadline: float
    reply_to: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=lambda: uuid.uuid4().hex)

    def expired(self, now: float | None = None) -> bool:
        """A command past its deadline is never executed: the sender has stopped waiting."""
        return (time.time() if now is None else now) >= self.deadline

    def to_json(self) -> str:
        return json.dumps({"v": WIRE_VERSION, **asdict(self)}, separators=(",", ":"))

    @classmethod
    def from_json(cls, body: str) -> Command:
        raw = json.loads(body)
        return cls(
            name=CommandName(raw["name"]),
            tenant_id=str(raw["tenant_id"]),
            device_id=str(raw["device_id"]),
            deadline=float(raw["deadline"]),
            reply_to=raw.get("reply_to"),
            args=dict(raw.get("args") or {}),
            id=str(raw["id"]),
        )


@dataclass(frozen=True)
class Reply:
    """The host's answer to a command: a result, or an error ``kind`` and ``message`` (and
    for a ``REFUSED`` kind, the group ``code`` of the refusal)."""

    command_id: str
    ok: bool
    result: dict[str, Any] = field(default_factory=dict)
    error_kind: ErrorKind | None = None
    error_message: str | None = None
    device: DeviceSnapshot | None = None
    error_code: str | None = None

    @classmethod
    def success(cls, command: Command, result: dict[str, Any], device: DeviceSnapshot | None) -> Reply:
        return cls(command_id=command.id, ok=True, result=result, device=device)

    @classmethod
    def failure(
        cls,
        command: Command,
        kind: ErrorKind,
        message: str,
        device: DeviceSnapshot | None,
        *,
        code: str | None = None,
    ) -> Reply:
        return cls(
            command_id=command.id,
            ok=False,
            error_kind=kind,
            error_message=message,
            device=device,
            error_code=code,
        )

    def to_json(self) -> str:
        return json.dumps({"v": WIRE_VERSION, **asdict(self)}, separators=(",", ":"))

    @classmethod
    def from_json(cls, body: str) -> Reply:
        raw = json.loads(body)
        device = raw.get("device")
        return cls(
            command_id=str(raw["command_id"]),
            ok=bool(raw["ok"]),
            result=dict(raw.get("result") or {}),
            error_kind=ErrorKind.read(str(raw["error_kind"])) if raw.get("error_kind") else None,
            error_message=raw.get("error_message"),
            device=DeviceSnapshot(**device) if device else None,
            error_code=raw.get("error_code"),
        )
