"""The messaging network port: the only way the session host talks to a network.

Two adapters implement it: ``simulated`` (an in-process model of the network, the local
default and the test backbone) and ``neonize`` (the real network). The session host owns
one :class:`DeviceSession` per device and never touches a network client directly.

A session is the device's lifecycle; its operations come in families, one attribute and one
small protocol each: ``sending`` (:class:`SendOperations`), ``messages``
(:class:`MessageOperations`), ``groups`` (:class:`~.group_types.GroupOperations`),
``status`` (:class:`~.status_types.StatusOperations`), the account's own ``presence``
and ``profile`` (:mod:`.profile_types`), other accounts, ``contacts``
(:class:`~.contact_types.ContactOperations`), and ``calls`` (:class:`~.call_types.CallOperations`).
What an adapter cannot do raises
:meth:`NetworkError.unsupported` (501 at the API).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from gateway.failures.kinds import ErrorKind
from gateway.groups import codes
from gateway.webhooks.catalog import EventName

from .call_types import CallOperations
from .contact_types import ContactOperations
from .group_types import GroupOperations
from .media_types import ContactCard, Location, OutgoingMedia, ReceivedMedia, Template
from .profile_types import PresenceOperations, ProfileOperations
from .reply_types import Poll, Quote
from .status_types import StatusOperations


class SessionState(StrEnum):
    """Connection state of one device session, as stored in the device record."""

    NOT_READY = "not_ready"
    PAIRING = "pairing"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    LOGGED_OUT = "logged_out"


class ChatPresence(StrEnum):
    """Chat presence the device shows in a chat."""

    COMPOSING = "composing"
    PAUSED = "paused"


@dataclass(frozen=True)
class NetworkEvent:
    """One event of the network, already named from the event catalog.

    ``data`` is the event's ``data`` payload exactly as documented in ``docs/events.md``;
    the session host wraps it into the delivery envelope (``id``, ``timestamp``, ``device_id``).
    ``attachment`` carries a received media message's bytes beside ``data`` (events travel on
    queues that take no bytes): the session host stores them and adds ``media_path``.
    """

    name: EventName
    data: Mapping[str, Any]
    occurred_at: float = field(default_factory=time.time)
    attachment: ReceivedMedia | None = None


@dataclass(frozen=True)
class SentMessage:
    """What the network answered for a message the device sent."""

    message_id: str
    chat_jid: str
    timestamp: float


@dataclass(frozen=True)
class MessageRef:
    """A message the device knows, named as the network keys it (history sync starts there).

    ``timestamp`` is epoch seconds; ``sender`` is the author in a group (None otherwise or
    when ``from_me``).
    """

    chat: str
    message_id: str
    from_me: bool
    timestamp: float
    sender: str | None = None


EventSink = Callable[[NetworkEvent], Awaitable[None]]
"""Coroutine the adapter awaits for every event, on the session host's event loop."""


REAL_REVOKE_WINDOW_SECONDS = 60 * 3600.0
"""The real network lets a sender delete a message for everyone for 60 hours."""
REAL_EDIT_WINDOW_SECONDS = 15 * 60.0
"""The real network lets a sender edit a text for 15 minutes."""


class RateLimit(StrEnum):
    """Which of the network's rate refusals a send met (``device.send_limited``'s ``reason``)."""

    OVERLIMIT = "rate_overlimit"  # whatsmeow's 429: too many messages for now
    REACHOUT_TIMELOCK = "reachout_timelock"  # 463: no new chats for a while


class NetworkError(Exception):
    """A network operation failed. ``kind`` (:class:`gateway.failures.kinds.ErrorKind`) is
    stable; ``str(error)`` is for humans.

    ``code`` is set exactly for ``REFUSED``: a lowercase code of
    :data:`gateway.groups.codes.REFUSALS` (``not_group_admin``, ``group_not_found``, ...).
    A ``RATE_LIMITED`` error may say which limit (``rate_limit``) and until when the network
    refuses (``retry_at``, epoch seconds; None when it did not say).
    """

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        code: str | None = None,
        rate_limit: RateLimit | None = None,
        retry_at: float | None = None,
    ) -> None:
        super().__init__(message)
        if (kind is ErrorKind.REFUSED) != (code is not None):
            raise ValueError("a refusal, and only a refusal, names its code")
        if kind is not ErrorKind.RATE_LIMITED and (rate_limit is not None or retry_at is not None):
            raise ValueError("only a rate refusal names a limit or a time to retry")
        self.kind = kind
        self.code = code
        self.rate_limit = rate_limit
        self.retry_at = retry_at

    @classmethod
    def rate_limited(cls, message: str, limit: RateLimit, retry_at: float | None = None) -> NetworkError:
        """The network refused for rate: ``limit`` says which, ``retry_at`` until when."""
        return cls(ErrorKind.RATE_LIMITED, message, rate_limit=limit, retry_at=retry_at)

    @classmethod
    def refused(cls, code: str, message: str) -> NetworkError:
        if not codes.is_refusal(code):
            raise ValueError(f"unknown refusal code {code!r}")
        return cls(ErrorKind.REFUSED, message, code=code)

    @classmethod
    def unsupported(cls, operation: str, adapter: str, why: str) -> NetworkError:
        """The port's answer for an operation (or an option of one) the adapter cannot carry
        out: ``UNSUPPORTED`` naming it, the adapter and why (501 ``UNSUPPORTED_OPERATION`` at
        the API, ``unsupported_operation`` on group routes). Raised before anything reaches
        the network, after the operation's own input checks."""
        return cls(ErrorKind.UNSUPPORTED, f"{operation} is not supported by {adapter}: {why}")


class SendOperations(Protocol):
    """What a connected device puts in a chat: messages of every kind, each answered with
    the network's :class:`SentMessage` and never echoed as an event (the gateway's send path
    emits ``message.sent``), and its typing state.

    Every send takes ``quote``: the message it replies to (:class:`~.reply_types.Quote`), which
    the message quotes. Any id is accepted, as the real network accepts it."""

    async def send_text(
        self, to: str, text: str, *, mentions: Sequence[str] = (), quote: Quote | None = None
    ) -> SentMessage:
        """Send a text to a user or group JID; no event is emitted for it.

        ``mentions`` (user JIDs, :func:`gateway.jids.mentioned_jids` of the text) are marked
        as mentioned, so their phones notify them as WhatsApp's clients do.
        """

    async def send_media(self, to: str, media: OutgoingMedia, *, quote: Quote | None = None) -> SentMessage:
        """Send an image, video, audio (``ptt``: a voice note), document or sticker from bytes.

        Raises ``INVALID`` for what the network refuses (:data:`.media_types.MEDIA_RULES`): an
        empty payload, a MIME type the kind does not take (a sticker must be ``image/webp``:
        the gateway converts before), a file too large; a document without a file name is
        allowed. Otherwise as :meth:`send_text` (``NOT_CONNECTED``, ``NOT_FOUND``, ...).
        """

    async def send_location(self, to: str, location: Location, *, quote: Quote | None = None) -> SentMessage:
        """Send a place; ``INVALID`` for coordinates off the Earth, otherwise as :meth:`send_text`."""

    async def send_contact(self, to: str, card: ContactCard, *, quote: Quote | None = None) -> SentMessage:
        """Share a contact as a vCard; ``INVALID`` without a name or with a bad phone."""

    async def send_template(self, to: str, template: Template, *, quote: Quote | None = None) -> SentMessage:
        """Send a text with 1 to 3 quick-reply buttons; ``INVALID`` for a bad template.

        neonize raises ``UNSUPPORTED``: the real network does not show buttons sent by a
        linked device (``docs/media.md``).
        """

    async def send_chat_presence(self, chat: str, presence: ChatPresence) -> None:
        """Show typing (composing) or stop showing it in a chat."""

    async def send_poll(self, to: str, poll: Poll, *, quote: Quote | None = None) -> SentMessage:
        """Send a poll; ``INVALID`` for a bad one (:func:`..message_checks.check_poll`),
        otherwise as :meth:`send_text`. Votes on it arrive as ``poll.vote``."""


class MessageOperations(Protocol):
    """What a device does with messages already exchanged: read receipts, deleting for
    everyone or for itself, asking its phone for older history, reacting, editing."""

    async def mark_read(self, chat: str, sender: str, message_ids: list[str]) -> None:
        """Send read receipts for messages received in a chat."""

    @property
    def revoke_window_seconds(self) -> float:
        """How long after sending a message its sender may delete it for everyone (the real
        network: 60 hours; the simulated one: ``SIMULATOR_REVOKE_WINDOW_SECONDS``). The
        session host checks it from its record of the send before asking the network."""

    async def revoke_message(self, chat: str, message_id: str) -> None:
        """Delete for everyone a message the device's account sent in ``chat``.

        The simulated network refuses ``NOT_FOUND`` (no such message of the account in that
        chat, or already revoked) and ``EXPIRED`` (past its revoke window). neonize cannot
        tell either before sending: the session host checks both from its own record.
        """

    async def delete_for_me(self, chat: str, message_id: str, *, from_me: bool, sender: str | None) -> None:
        """Remove a message from the account's own view (app state), at any time.

        ``sender`` is the author of a group message not ``from_me``. The ``message.delete_for_me``
        event is the gateway's to emit after this succeeds, not the adapter's.
        """

    async def request_history_sync(self, chat: str, count: int, oldest: MessageRef) -> None:
        """Ask the account's phone for up to ``count`` messages of ``chat`` before ``oldest``.

        The answer, if any, arrives later as ``history.sync`` (``sync_type`` ``on_demand``).
        """

    # Reactions and edits.

    async def react(
        self, chat: str, message_id: str, emoji: str, *, from_me: bool, sender: str | None
    ) -> None:
        """React with ``emoji`` to a message of ``chat`` (an empty one removes the account's
        reaction): one the account sent (``from_me``), or one ``sender`` sent there.

        The simulated network refuses ``NOT_FOUND`` for a message the account does not have
        in that chat; neonize cannot tell and sends the reaction all the same.
        """

    @property
    def edit_window_seconds(self) -> float:
        """How long after sending a text its sender may edit it (the real network: 15
        minutes; the simulated one: ``SIMULATOR_EDIT_WINDOW_SECONDS``). The session host checks
        it from its record of the send before asking the network."""

    async def edit_message(self, chat: str, message_id: str, text: str) -> None:
        """Replace the text of a text message the account sent in ``chat``.

        The simulated network refuses ``NOT_FOUND`` (no such text of the account there, or
        revoked) and ``EXPIRED`` (past its edit window); neonize cannot tell either before
        sending: the session host checks both from its own record.
        """


class DeviceSession(Protocol):
    """One device's session on the network; both adapters follow what is written here.

    The session itself is the device's lifecycle (connect, pair, disconnect, log out, close).
    Its operations come in families, one attribute each: :attr:`sending`
    (:class:`SendOperations`), :attr:`messages` (:class:`MessageOperations`), :attr:`groups`
    (:class:`~.group_types.GroupOperations`), :attr:`status`
    (:class:`~.status_types.StatusOperations`), :attr:`presence` and :attr:`profile`
    (:mod:`.profile_types`), :attr:`contacts` and :attr:`calls`. An adapter implements each
    family as one object of its own; what it cannot do raises :meth:`NetworkError.unsupported`.

    Lifecycle: ``connect`` starts the session. An unpaired session emits ``qr.generated``
    (and rotates the code) until a phone scans it or a pair code is entered, then
    ``pair.success`` and ``device.connected``. A paired session resumes from its stored
    credentials and emits ``device.connected``. A connection lost by the network emits
    ``device.disconnected`` and the adapter reconnects by itself, as the real client does.

    The device is *paired* (logged in) exactly while :attr:`jid` is set. Events are the
    network's own: a message the device sends is not echoed as an event (the gateway's
    send path emits ``message.sent``). Every operation fails with :class:`NetworkError`;
    ``NOT_CONNECTED`` always means "nothing was sent to the network".
    """

    @property
    def device_id(self) -> str: ...

    @property
    def state(self) -> SessionState:
        """Where the session stands (the device record's ``status``).

        ``NOT_READY``: unpaired and idle. ``PAIRING``: showing QR codes. ``CONNECTED``.
        ``DISCONNECTED``: paired, not connected (also while it connects or reconnects).
        ``LOGGED_OUT``: unlinked, until it pairs again.
        """

    @property
    def jid(self) -> str | None:
        """The account JID once paired (``<digits>@s.whatsapp.net``), else None."""

    @property
    def current_qr(self) -> tuple[str, float] | None:
        """The QR code being shown and its expiry (epoch seconds), while pairing."""

    @property
    def sending(self) -> SendOperations:
        """Sending messages of every kind, and the typing state."""

    @property
    def messages(self) -> MessageOperations:
        """Read receipts, revoke, delete for me, history sync, reactions, edits."""

    @property
    def groups(self) -> GroupOperations:
        """Groups and communities: create, read, administer, invite, join, leave, link."""

    @property
    def status(self) -> StatusOperations:
        """Stories: who sees them, and publishing one."""

    @property
    def presence(self) -> PresenceOperations:
        """The account's own presence, and following other people's."""

    @property
    def profile(self) -> ProfileOperations:
        """The account's push name, About text and picture."""

    @property
    def contacts(self) -> ContactOperations:
        """Other accounts: number checks, one account's profile and identities, blocking."""

    @property
    def calls(self) -> CallOperations:
        """Declining the calls the account is offered."""

    def use_proxy(self, proxy_url: str | None) -> None:
        """The proxy (``http://``, ``https://``, ``socks5://``, with credentials or not;
        ``gateway.devices.proxies``) the session's connections go through from its next
        :meth:`connect` on; None: none. A connection already open keeps its way; the adapter
        never logs the URL with its password."""

    async def connect(self) -> None:
        """Start (or resume) the session; returns once the attempt is under way.

        A session already running (connected, pairing, reconnecting) is left as it is. Raises
        :class:`NetworkError` when the attempt cannot start (a fault of the simulated
        network; for neonize, ``UNSUPPORTED`` when another device of the process runs the
        same account); what happens once it started is reported by events.
        """

    async def pair_phone(self, phone: str) -> str:
        """A pair code for ``phone`` (7 to 15 digits) from the running pairing session.

        Raises ``ALREADY_LOGGED_IN`` when paired, ``NOT_CONNECTED`` when no pairing session
        runs (it never starts one: call :meth:`connect` first), ``INVALID`` for a bad phone.
        A session that has just started may wait for its first QR code (neonize needs it).
        """

    async def disconnect(self) -> None:
        """Close the connection and keep the login; no automatic reconnect.

        Emits ``device.disconnected`` (reason ``manual``; ``not_ready`` while pairing). A
        session that is not running is left alone, without an event.
        """

    async def logout(self) -> None:
        """Unlink the device and delete its stored credentials; emits ``device.logged_out``.

        Connected: the network revokes the link; if that call fails, it raises and nothing
        is deleted. Paired but not connected: the credentials are deleted locally all the
        same (reason ``logout`` too) and the network is not told, so the phone keeps listing
        the linked device until it is removed there. This also forgets a device whatever the
        network says: ``close()`` then ``logout()``. Never paired: ``NOT_CONNECTED`` ("the
        device is not logged in") and nothing changes.
        """

    async def close(self) -> None:
        """Stop the session without logging out and without events (host shutdown, lease lost)."""


class NetworkPort(Protocol):
    """Factory of device sessions for one network."""

    name: str

    def open_session(self, device_id: str, *, data_dir: Path, sink: EventSink) -> DeviceSession:
        """A session object for the device; credentials are kept under ``data_dir``.

        Nothing connects until :meth:`DeviceSession.connect`. Whether the device is paired
        is read from what the adapter stored under ``data_dir`` for this device.
        """

    def discard(self, device_id: str, *, data_dir: Path) -> None:
        """Delete whatever the adapter stored for the device under ``data_dir`` (credentials,
        the network library's store), paired or not: the device is being deleted and its
        session is closed. A device with nothing stored is no error."""
