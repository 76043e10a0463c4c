"""The simulator control API (local mode only): plays the other people's phones.

Every route needs the master token: the caller passes the dependency that checks it
(``gateway.web.auth.require_master``). Errors use the gateway's standard envelope, except
the group routes' (:mod:`.control_groups`), which use the lowercase group envelope.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends
from fastapi import Path as PathParam
from pydantic import AwareDatetime, BaseModel, Field, StringConstraints, field_validator, model_validator

from gateway import clock
from gateway.bus.contracts.messages import MAX_POLL_OPTIONS
from gateway.bus.contracts.profile import MAX_ABOUT_CHARS
from gateway.errors import ApiError
from gateway.failures.codes import ErrorCode
from gateway.groups.codes import OperationCode
from gateway.jids import PHONE_PATTERN, PhoneNumber
from gateway.timestamps import iso_utc
from gateway.web.error_docs import MASTER, WITH_BODY, answers, operation, standard

from ..media_types import MediaKind, OutgoingMedia, QuickReply
from .control_groups import group_call, group_routes
from .model import OPERATIONS, SEND_OPERATIONS, ControlError
from .network import SimulatedNetwork

PhoneInPath = Annotated[str, PathParam(pattern=PHONE_PATTERN, description="a plain phone number")]
DeviceIdInPath = Annotated[str, PathParam(min_length=1, max_length=128)]
CallIdInPath = Annotated[str, PathParam(min_length=1, max_length=64)]
MessageIdInPath = Annotated[str, PathParam(min_length=1, max_length=128)]
Target = Annotated[str, StringConstraints(min_length=1, max_length=128)]

T = TypeVar("T")
MAX_CLOCK_MOVE_SECONDS = 400 * 24 * 3600.0
"""The furthest one PUT /_simulator/clock moves the clock by ``advance_seconds``."""

MAX_RETRY_AFTER_SECONDS = 30 * 86400
"""The longest wait a simulated rate refusal names (the real reachout timelock lasts days)."""

# What the control API answers, for all of its routes at once (ControlError in .network).
CONTROL_ERRORS_PARTS = (
    MASTER,
    WITH_BODY,
    standard(400, ErrorCode.INVALID_CHAT_JID),
    standard(
        404,
        ErrorCode.ACCOUNT_NOT_FOUND,
        ErrorCode.CALL_NOT_FOUND,
        ErrorCode.DEVICE_NOT_FOUND,
        ErrorCode.MESSAGE_NOT_FOUND,
        ErrorCode.PAIR_CODE_NOT_FOUND,
        ErrorCode.RECIPIENT_NOT_FOUND,
    ),
    standard(409, ErrorCode.ACCOUNT_EXISTS, ErrorCode.ALREADY_LOGGED_IN),
)
CONTROL_ERRORS = answers(*CONTROL_ERRORS_PARTS)


class AccountIn(BaseModel):
    phone: PhoneNumber
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)] | None = None


class ScanIn(BaseModel):
    phone: PhoneNumber


class PairCodeIn(BaseModel):
    phone: PhoneNumber
    code: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}$")]


DEFAULT_MIMETYPES: dict[MediaKind, str] = {
    MediaKind.IMAGE: "image/jpeg",
    MediaKind.VIDEO: "video/mp4",
    MediaKind.AUDIO: "audio/ogg",
    MediaKind.DOCUMENT: "application/octet-stream",
    MediaKind.STICKER: "image/webp",
}
"""The MIME type a phone's media has when the request names none."""


class MediaIn(BaseModel):
    kind: MediaKind
    data_base64: Annotated[str, StringConstraints(min_length=1)]
    mimetype: Annotated[str, StringConstraints(min_length=3, max_length=255)] | None = None
    caption: Annotated[str, StringConstraints(max_length=65536)] | None = None
    filename: Annotated[str, StringConstraints(min_length=1, max_length=255)] | None = None
    ptt: bool = False

    @field_validator("data_base64")
    @classmethod
    def _base64(cls, value: str) -> str:
        try:
            base64.b64decode(value, validate=True)
        except ValueError as error:
            raise ValueError("must be base64") from error
        return value

    def outgoing(self) -> OutgoingMedia:
        data = base64.b64decode(self.data_base64)
        mimetype = self.mimetype or DEFAULT_MIMETYPES[self.kind]
        return OutgoingMedia(self.kind, data, mimetype, self.caption, self.filename, self.ptt)


class ButtonReplyIn(BaseModel):
    id: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    text: Annotated[str, StringConstraints(min_length=1, max_length=256)]


class MessageIn(BaseModel):
    to: Target = Field(description="a user JID, phone digits or a group JID")
    text: Annotated[str, StringConstraints(min_length=1, max_length=65536)] | None = Field(
        default=None, description="the text; with media, its caption"
    )
    media: MediaIn | None = Field(default=None, description="media the phone sends (with or without text)")
    button_reply: ButtonReplyIn | None = Field(
        default=None, description="the phone taps a template's quick reply (alone)"
    )
    reply_to: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = Field(
        default=None, description="the id of a message of that chat it replies to (any id is taken)"
    )


class ContactsIn(BaseModel):
    phones: Annotated[list[PhoneNumber], Field(min_length=1, max_length=1000)]


class ReadIn(BaseModel):
    chat: Target = Field(description="the chat: the sender's user JID or phone digits, or a group JID")
    message_ids: Annotated[list[Annotated[str, StringConstraints(min_length=1)]], Field(min_length=1)]


class NameIn(BaseModel):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


class AccountChangesIn(BaseModel):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)] | None = (
        Field(default=None, description="the push name; null is refused")
    )
    about: Annotated[str, StringConstraints(max_length=MAX_ABOUT_CHARS)] | None = Field(
        default=None, description=f"the About text, up to {MAX_ABOUT_CHARS} characters; null clears it"
    )

    @model_validator(mode="after")
    def _a_change(self) -> AccountChangesIn:
        if not self.model_fields_set & {"name", "about"}:
            raise ValueError("give name, about or both")
        if "name" in self.model_fields_set and self.name is None:
            raise ValueError("name cannot be null")
        return self


class TypingIn(BaseModel):
    to: Target = Field(description="the chat: a user JID, phone digits or a group JID")
    state: Literal["composing", "paused"]


class PresenceIn(BaseModel):
    to: Target | None = Field(
        default=None,
        description="who sees it: a user JID or phone digits; absent: every device following "
        "the account's presence",
    )
    available: bool


class ReactionIn(BaseModel):
    chat: Target = Field(description="the chat of the message: a user JID, phone digits or a group JID")
    emoji: Annotated[str, StringConstraints(max_length=32)] = Field(
        description="the reaction; empty takes the account's reaction back"
    )


class EditIn(BaseModel):
    chat: Target = Field(description="the chat the account sent the text in")
    text: Annotated[str, StringConstraints(min_length=1, max_length=65536)]


class CallIn(BaseModel):
    to: Target = Field(description="a user JID or phone digits")
    video: bool = False


class EndCallIn(BaseModel):
    reason: Annotated[str, StringConstraints(pattern=r"^[a-z_]{1,32}$")] | None = Field(
        default=None, description="the network's reason, e.g. timeout; none by default"
    )


class FaultIn(BaseModel):
    device_id: str | None = Field(default=None, description="only this device; every device when absent")
    operation: str = Field(description="a session operation: " + ", ".join(sorted(OPERATIONS)))
    error: Literal[
        "network", "timeout", "rate_limited", "refused", "hang", "ack_lost", "reachout_timelock"
    ] = Field(
        description="how the operations fail; `refused` (the dial fails at once) and `hang` (the dial "
        "is never answered) apply to `connect` only, which also covers a dropped session's own "
        "reconnect; `ack_lost` (the network takes the message, its answer never comes: a timeout) and "
        "`reachout_timelock` (the network's 463: no new chats for a while) to the send operations "
        "only; `rate_limited` is the network's 429 (rate overlimit)"
    )
    count: int = Field(default=1, ge=1, le=10_000)
    retry_after_seconds: float | None = Field(
        default=None,
        ge=0,
        le=MAX_RETRY_AFTER_SECONDS,
        description="with `rate_limited` or `reachout_timelock`: the network says to retry that long after "
        "it refuses (the error's retry_at); absent: it does not say",
    )

    @model_validator(mode="after")
    def _faults_on_their_operations(self) -> FaultIn:
        if self.error in ("refused", "hang") and self.operation != "connect":
            raise ValueError(f"{self.error} applies to the connect operation only")
        if self.error in ("ack_lost", "reachout_timelock") and self.operation not in SEND_OPERATIONS:
            raise ValueError(
                f"{self.error} applies to the send operations only: {', '.join(sorted(SEND_OPERATIONS))}"
            )
        if self.retry_after_seconds is not None and self.error not in ("rate_limited", "reachout_timelock"):
            raise ValueError("retry_after_seconds goes with rate_limited or reachout_timelock only")
        return self

    @field_validator("operation")
    @classmethod
    def _known_operation(cls, value: str) -> str:
        if value not in OPERATIONS:
            raise ValueError(f"must be one of {', '.join(sorted(OPERATIONS))}")
        return value


class NewChatCapIn(BaseModel):
    limit: int = Field(ge=0, le=10_000, description="new chats the device may still start (0: none)")
    lock_seconds: int = Field(
        ge=1, le=MAX_RETRY_AFTER_SECONDS, description="how long the next new chat locks every new chat"
    )


class ClockIn(BaseModel):
    """Set the clock to ``now``, or move it by ``advance_seconds`` (exactly one of them)."""

    now: AwareDatetime | None = Field(default=None, description="the new time (ISO 8601 with a timezone)")
    advance_seconds: float | None = Field(
        default=None,
        ge=-MAX_CLOCK_MOVE_SECONDS,
        le=MAX_CLOCK_MOVE_SECONDS,
        description="move it by this much",
    )

    @model_validator(mode="after")
    def _one_of(self) -> ClockIn:
        if (self.now is None) == (self.advance_seconds is None):
            raise ValueError("give exactly one of now and advance_seconds")
        return self


class ClockOut(BaseModel):
    success: bool = True
    now: str = Field(description="the simulated stack's time now, ISO 8601 UTC")


class VoteIn(BaseModel):
    chat: Target = Field(
        description="where the poll is: its author's user JID or phone digits, or a group JID"
    )
    options: Annotated[
        list[Annotated[str, StringConstraints(min_length=1)]], Field(max_length=MAX_POLL_OPTIONS)
    ] = Field(description="the texts of the options chosen; empty takes the vote back")


def _call(action: Callable[..., T], *args: Any) -> T:
    try:
        return action(*args)
    except ControlError as error:
        raise ApiError(error.status, error.code, str(error)) from error


def control_router(network: SimulatedNetwork, master: Callable[..., Any]) -> APIRouter:
    """The ``/_simulator`` routes acting on ``network``; ``master`` guards every one."""
    router = APIRouter(
        prefix="/_simulator", tags=["simulator"], dependencies=[Depends(master)], responses=CONTROL_ERRORS
    )

    @router.post("/accounts", status_code=201)
    def create_account(body: AccountIn) -> dict[str, Any]:
        """A network account that is not a gateway device (a contact)."""
        return {"success": True, **_call(network.create_account, body.phone, body.name)}

    @router.post("/devices/{device_id}/scan")
    def scan(device_id: DeviceIdInPath, body: ScanIn) -> dict[str, Any]:
        """The phone scans the device's current QR code; the device pairs as that account."""
        return {"success": True, "jid": _call(network.scan, device_id, body.phone)}

    @router.post("/pair-code")
    def pair_code(body: PairCodeIn) -> dict[str, Any]:
        """The phone enters a pair code shown by POST /devices/{id}/pair-phone."""
        return {"success": True, "jid": _call(network.enter_pair_code, body.phone, body.code)}

    @router.post(
        "/accounts/{phone}/messages",
        responses=answers(
            CONTROL_ERRORS_PARTS,
            operation(403, OperationCode.NOT_GROUP_ADMIN),
            operation(404, OperationCode.GROUP_NOT_FOUND),
        ),
    )
    def send_message(phone: PhoneInPath, body: MessageIn) -> dict[str, Any]:
        """The account sends a text or media (``text`` is then its caption), or taps a
        template's quick reply, to a user JID, or to a group: every other member gets it.
        What the network refuses: 400; the group refuses in the lowercase group envelope (a
        non-member, a non-admin where only admins send)."""
        media = body.media.outgoing() if body.media is not None else None
        reply = QuickReply(body.button_reply.id, body.button_reply.text) if body.button_reply else None
        message_id = group_call(
            network.send_from_account, phone, body.to, body.text, media, reply, body.reply_to
        )
        return {"success": True, "message_id": message_id}

    @router.post("/accounts/{phone}/messages/{message_id}/reaction")
    def react(phone: PhoneInPath, message_id: MessageIdInPath, body: ReactionIn) -> dict[str, Any]:
        """The account reacts to a message it has in the chat (sent or received), or takes its
        reaction back (empty ``emoji``); the chat's other people's devices get ``message.reaction``."""
        _call(network.react_from_account, phone, message_id, body.chat, body.emoji)
        return {"success": True, "message_id": message_id, "chat": body.chat, "emoji": body.emoji}

    @router.post(
        "/accounts/{phone}/messages/{message_id}/edit",
        responses=answers(CONTROL_ERRORS_PARTS, standard(400, ErrorCode.EDIT_TIME_EXPIRED)),
    )
    def edit(phone: PhoneInPath, message_id: MessageIdInPath, body: EditIn) -> dict[str, Any]:
        """The account edits a text it sent in the chat, within ``SIMULATOR_EDIT_WINDOW_SECONDS``;
        the chat's other people's devices get ``message.edited``."""
        _call(network.edit_from_account, phone, message_id, body.chat, body.text)
        return {"success": True, "message_id": message_id, "chat": body.chat}

    @router.post("/accounts/{phone}/read")
    def read_messages(phone: PhoneInPath, body: ReadIn) -> dict[str, Any]:
        """The account reads messages of a chat; read receipts go to the sender."""
        read = _call(network.read_by_account, phone, body.chat, body.message_ids)
        return {"success": True, "message_ids": read}

    @router.post("/accounts/{phone}/name")
    def rename(phone: PhoneInPath, body: NameIn) -> dict[str, Any]:
        """The account changes its push name; devices see ``contact.pushname`` with its next message."""
        return {"success": True, **_call(network.rename_account, phone, body.name)}

    @router.post("/accounts/{phone}/typing")
    def typing(phone: PhoneInPath, body: TypingIn) -> dict[str, Any]:
        """The account shows or stops showing typing in its chat with ``to`` (``chat.presence``)."""
        _call(network.type_to, phone, body.to, body.state)
        return {"success": True, "to": body.to, "state": body.state}

    @router.post("/accounts/{phone}/presence")
    def presence(phone: PhoneInPath, body: PresenceIn) -> dict[str, Any]:
        """The account comes online or goes offline (``contact.presence``): as ``to`` sees it,
        or for every device following its presence."""
        _call(network.show_presence, phone, body.to, body.available)
        return {"success": True, "to": body.to, "available": body.available}

    @router.post("/accounts/{phone}/calls", status_code=201)
    def call(phone: PhoneInPath, body: CallIn) -> dict[str, Any]:
        """The account calls ``to``; the devices connected now get ``call.offer``."""
        return {"success": True, "call_id": _call(network.call, phone, body.to, body.video)}

    @router.post("/accounts/{phone}/calls/{call_id}/terminate")
    def end_call(phone: PhoneInPath, call_id: CallIdInPath, body: EndCallIn | None = None) -> dict[str, Any]:
        """The caller hangs up, or the call stops ringing (``call.terminate``)."""
        _call(network.end_call, phone, call_id, body.reason if body else None)
        return {"success": True, "call_id": call_id}

    @router.post("/accounts/{phone}/contacts")
    def add_contacts(phone: PhoneInPath, body: ContactsIn) -> dict[str, Any]:
        """The account saves accounts as contacts (who may see its stories); answers all its
        contacts, those it exchanged a message with included (``docs/status.md``)."""
        return {"success": True, "contacts": _call(network.add_contacts, phone, body.phones)}

    @router.get("/accounts/{phone}/contacts")
    def contacts(phone: PhoneInPath) -> dict[str, Any]:
        """The account's contacts: added, or exchanged a one-to-one message with."""
        return {"success": True, "contacts": _call(network.contacts_of, phone)}

    @router.get("/accounts/{phone}")
    def account(phone: PhoneInPath) -> dict[str, Any]:
        """The account as others see it: identities, profile (name, About, picture) and presence."""
        return {"success": True, "account": _call(network.account_view, phone)}

    @router.get("/accounts/{phone}/inbox")
    def inbox(phone: PhoneInPath) -> dict[str, Any]:
        """What the account received and saw: messages, chat presence, statuses, its sent and
        its rejected calls."""
        return {"success": True, **_call(network.inbox, phone)}

    @router.post("/devices/{device_id}/drop")
    def drop(device_id: DeviceIdInPath) -> dict[str, Any]:
        """The network drops the device's connection; the session reconnects by itself."""
        if not network.drop(device_id):
            raise ApiError(404, ErrorCode.DEVICE_NOT_FOUND, f"device {device_id} has no connection to drop")
        return {"success": True, "device_id": device_id}

    @router.get("/devices/{device_id}/connection")
    def connection(device_id: DeviceIdInPath) -> dict[str, Any]:
        """How the device reaches the network: connected now, and the proxy its latest
        connection went through (password as ``***``)."""
        view = network.connection_view(device_id)
        if view is None:
            raise ApiError(404, ErrorCode.DEVICE_NOT_FOUND, f"device {device_id} never connected")
        return {"success": True, **view}

    @router.post("/devices/{device_id}/unlink")
    def unlink(device_id: DeviceIdInPath) -> dict[str, Any]:
        """The phone removes the linked device; a connected session is logged out at once."""
        if not network.unlink(device_id):
            raise ApiError(404, ErrorCode.DEVICE_NOT_FOUND, f"no phone lists device {device_id} as linked")
        return {"success": True, "device_id": device_id}

    @router.post("/faults")
    def inject_fault(body: FaultIn) -> dict[str, Any]:
        """The next ``count`` operations of that name (of that device, or any) fail that way."""
        network.inject_fault(body.operation, body.error, body.count, body.device_id, body.retry_after_seconds)
        return {"success": True, **body.model_dump()}

    @router.put("/devices/{device_id}/new_chat_cap")
    def set_new_chat_cap(device_id: DeviceIdInPath, body: NewChatCapIn) -> dict[str, Any]:
        """From now on the network refuses the device's sends to new chats (people its account
        never wrote to or heard from) beyond ``limit``: the next one locks every new chat for
        ``lock_seconds`` (463 reachout timelock, ``RATE_LIMITED``); known chats keep working."""
        return {"success": True, **_call(network.set_new_chat_cap, device_id, body.limit, body.lock_seconds)}

    @router.get("/devices/{device_id}/new_chat_cap")
    def new_chat_cap(device_id: DeviceIdInPath) -> dict[str, Any]:
        """The device's new-chat cap: new chats started, and the end of a lock in force (null
        when no cap is set)."""
        return {"success": True, **_call(network.new_chat_cap, device_id)}

    @router.delete("/devices/{device_id}/new_chat_cap")
    def lift_new_chat_cap(device_id: DeviceIdInPath) -> dict[str, Any]:
        """The network no longer caps the device's new chats (a lock in force ends)."""
        return {"success": True, **_call(network.lift_new_chat_cap, device_id)}

    # Contacts.
    @router.patch("/accounts/{phone}")
    def update_account(phone: PhoneInPath, body: AccountChangesIn) -> dict[str, Any]:
        """The account changes its name and/or About text, as devices read them (GET
        /contacts/{jid}); a new name brings ``contact.pushname`` with its next message."""
        changes = body.model_dump(include=body.model_fields_set & {"name", "about"})
        return {"success": True, **_call(network.update_account, phone, changes)}

    router.include_router(group_routes(network))

    # The sending policy's clock (gateway.clock): settable only here, in the simulated stack.
    clock.CLOCK.allow_setting()

    @router.get("/clock")
    def get_clock() -> ClockOut:
        """The clock of the sending policy (UTC days, warm-up, pauses) and of the send
        dispatchers' due times."""
        return ClockOut(now=iso_utc(clock.now()))

    @router.put("/clock")
    def set_clock(body: ClockIn) -> ClockOut:
        """Set or move that clock (it runs on from there); the dispatchers look again at once."""
        if body.now is not None:
            clock.CLOCK.set(body.now.timestamp())
        else:
            clock.CLOCK.advance(body.advance_seconds or 0.0)
        return ClockOut(now=iso_utc(clock.now()))

    @router.post("/accounts/{phone}/polls/{poll_id}/vote")
    def vote(phone: PhoneInPath, poll_id: MessageIdInPath, body: VoteIn) -> dict[str, Any]:
        """The account votes on a poll it received: its choice replaces its last one (an empty
        list takes the vote back); the chat's other people's devices get ``poll.vote``."""
        chosen = _call(network.vote, phone, poll_id, body.chat, body.options)
        return {"success": True, "message_id": poll_id, "selected_options": chosen}

    return router
