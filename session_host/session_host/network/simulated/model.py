"""Pieces of the simulated network's world: identifiers, records and errors.

Phone numbers and JIDs follow :mod:`gateway.jids`, as with the real network's adapter.

Pure code, no locks and no I/O: :mod:`.network` holds the world and its lock.
"""

from __future__ import annotations

import base64
import inspect
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from gateway import jids
from gateway.bus.messages import GROUP_COMMANDS
from gateway.failures.kinds import ErrorKind

from ..call_types import CallOperations
from ..contact_types import ContactOperations
from ..port import DeviceSession, MessageOperations, NetworkError, RateLimit, SendOperations
from ..profile_types import PresenceOperations, ProfileOperations
from ..status_types import StatusOperations

_PAIR_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTVWXYZ"  # the network's linking alphabet (no 0, O, I, U)


class DialFault(StrEnum):
    """How the network answers a connection attempt, besides the error kinds: ``refused``
    (the dial fails at once) or ``hang`` (nothing ever answers; the attempt stays open until
    the session is closed, as a silent network does)."""

    REFUSED = "refused"
    HANG = "hang"


class AnswerFault(StrEnum):
    """An operation the network carries out whose answer never comes back: the session waits
    the fault's delay and fails it as a ``timeout``, while the recipients have it. What a
    send whose acknowledgement was lost looks like (the sender cannot tell it went out)."""

    LOST = "ack_lost"


FaultKind = ErrorKind | DialFault | AnswerFault | RateLimit

FAULT_KINDS: dict[str, FaultKind] = {
    "network": ErrorKind.NETWORK,
    "timeout": ErrorKind.TIMEOUT,
    "rate_limited": ErrorKind.RATE_LIMITED,
    "refused": DialFault.REFUSED,
    "hang": DialFault.HANG,
    "ack_lost": AnswerFault.LOST,
    "reachout_timelock": RateLimit.REACHOUT_TIMELOCK,  # sends only: 463, no new chats for a while
}


def rate_limit_of(kind: FaultKind) -> RateLimit | None:
    """The rate refusal a fault plays, if it is one: ``rate_limited`` is the network's 429
    overlimit, ``reachout_timelock`` its 463."""
    if isinstance(kind, RateLimit):
        return kind
    return RateLimit.OVERLIMIT if kind is ErrorKind.RATE_LIMITED else None


DIAL_OPERATION = "connect"
"""The only operation the :class:`DialFault` kinds apply to (also a drop's reconnect)."""
SEND_OPERATIONS = frozenset(
    {
        "send_text",
        "send_media",
        "send_location",
        "send_contact",
        "send_template",
        "publish_status",
        "send_poll",
    }
)
"""The operations an :class:`AnswerFault` applies to: those that put a message on the network."""

GROUP_OPERATIONS: frozenset[str] = frozenset(name.value for name in GROUP_COMMANDS)
"""Fault names of the group operations: the bus command that runs each (``join_group``,
``group_participants``...), the names the decisions give them, not the port's method names."""

OPERATIONS: frozenset[str] = GROUP_OPERATIONS | frozenset(
    name
    for protocol in (
        DeviceSession,
        SendOperations,
        MessageOperations,
        StatusOperations,
        PresenceOperations,
        ProfileOperations,
        ContactOperations,
        CallOperations,
    )
    for name, member in vars(protocol).items()
    if inspect.iscoroutinefunction(member) and name != "close"
)
"""Operations a fault can target: the port's session methods and those of its sending,
messages, status, presence, profile, contacts and calls families by name (``close`` never
fails), and the group operations by the bus command that runs each."""

Deliver = Callable[[str, Mapping[str, Any]], None]
"""How the network hands a signal to a session: ``deliver(kind, payload)``, never blocking.

Kinds: ``event`` (payload ``{name, data}``: a catalog event for the device), ``paired``
(``{jid, device_key}``), ``dropped`` (``{reason}``), ``replaced`` and ``logged_out`` (``{reason}``).
"""


class ControlError(Exception):
    """A control API request the network refuses; ``code`` is the uppercase error code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


# --- identifiers ----------------------------------------------------------------------


def account_phone(address: str) -> str:
    """The phone of the account ``address`` names (phone digits or a user JID, as the
    adapters take addresses: :func:`gateway.jids.parse_jid`).

    Raises
    ------
    NetworkError
        ``INVALID`` when ``address`` is no address; ``NOT_FOUND`` when it names what this
        network does not model (a group, a LID, a broadcast list).
    """
    jid = jids.parse_jid(address)
    if jid is None:
        raise NetworkError(ErrorKind.INVALID, f"not a phone number or JID: {address!r}")
    if jid.server != jids.USER_SERVER:
        raise NetworkError(ErrorKind.NOT_FOUND, f"{address} does not exist on the network")
    return jid.user


def new_lid() -> str:
    """An account's LID: opaque digits on the ``lid`` server, unrelated to its phone number."""
    return f"{secrets.randbelow(9 * 10**14) + 10**14}@{jids.LID_SERVER}"


def new_message_id() -> str:
    return "3EB0" + secrets.token_hex(8).upper()


def new_call_id() -> str:
    return secrets.token_hex(16).upper()


def new_device_key() -> str:
    return secrets.token_urlsafe(32)


def new_connection_id() -> str:
    return secrets.token_hex(8)


def new_pair_code() -> str:
    chars = "".join(secrets.choice(_PAIR_ALPHABET) for _ in range(8))
    return f"{chars[:4]}-{chars[4:]}"


def normalize_pair_code(code: str) -> str:
    chars = code.strip().upper().replace("-", "")
    return f"{chars[:4]}-{chars[4:]}" if len(chars) == 8 else chars


def new_qr_code() -> str:
    """Shaped like the real thing: ``ref,noise key,identity key,adv secret``."""
    keys = (base64.b64encode(secrets.token_bytes(32)).decode() for _ in range(3))
    return ",".join([f"2@{secrets.token_urlsafe(48)}", *keys])


# --- records --------------------------------------------------------------------------


@dataclass
class Account:
    """A phone on the network. ``inbox`` is what it received, ``sent`` what it sent.

    ``lid`` is its stable LID (given once, saved with the account); group participants
    may name the account by it. ``about`` is its About text; ``blocked`` the user JIDs it
    blocks (their messages, calls and presence never reach it: :meth:`.world.World.blocks`).
    """

    phone: str
    name: str | None = None
    lid: str = field(default_factory=new_lid)
    inbox: list[dict[str, Any]] = field(default_factory=list)
    presence: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)  # stories it may see
    contacts: list[str] = field(default_factory=list)  # user JIDs it added (World.contacts)
    status_privacy: dict[str, Any] = field(default_factory=lambda: {"type": "contacts", "list": []})
    sent: list[dict[str, Any]] = field(default_factory=list)
    deleted_for_me: list[dict[str, Any]] = field(default_factory=list)  # app state of its devices
    # The account's profile and presence as others see them.
    about: str | None = None
    picture: dict[str, Any] | None = None  # {picture_id, sha256, size, set_at}; bytes in World.media
    available: bool = False
    last_seen: float | None = None
    blocked: list[str] = field(default_factory=list)  # user JIDs this account blocked (contacts)
    calls: list[dict[str, Any]] = field(default_factory=list)  # calls it made that were rejected
    reactions: list[dict[str, Any]] = field(default_factory=list)  # reactions it got (message_changes)

    @property
    def jid(self) -> str:
        return jids.user_jid(self.phone)

    def sent_message(self, chat_jid: str, message_id: str) -> dict[str, Any] | None:
        """What the account sent to ``chat_jid`` as ``message_id``, unless it revoked it."""
        return next(
            (
                entry
                for entry in self.sent
                if entry["message_id"] == message_id and entry["to"] == chat_jid and not entry.get("revoked")
            ),
            None,
        )

    @property
    def push_name(self) -> str:
        return self.name or self.phone

    @property
    def picture_url(self) -> str | None:
        """Where the picture would be fetched: shaped like the network's, under the reserved
        ``.invalid`` domain (the simulated network hosts no pictures; its bytes are kept by
        ``sha256``)."""
        if self.picture is None:
            return None
        return f"https://pps.simulator.invalid/v/{self.picture['picture_id']}.jpg"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Link:
    """A device linked to an account: whoever holds ``device_key`` may connect as ``jid``.

    ``following``: the people whose presence the device subscribed to (kept while it stays
    linked, across reconnects).
    """

    device_key: str
    jid: str
    device_id: str
    linked_at: float = field(default_factory=time.time)
    following: list[str] = field(default_factory=list)  # user JIDs whose presence it follows

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Connection:
    """One live connection of a session; unpaired while ``device_key`` is None."""

    conn_id: str
    device_id: str
    deliver: Deliver
    device_key: str | None = None
    jid: str | None = None
    qr: str | None = None
    pair_code: str | None = None
    pair_phone: str | None = None
    opened_at: float = field(default_factory=time.time)
    proxy_url: str | None = None  # the proxy the session dialed through (with its password)


@dataclass
class Call:
    """A call ringing from ``caller`` to ``callee`` (user JIDs) until the caller ends it."""

    call_id: str
    caller: str
    callee: str
    video: bool = False
    started_at: float = field(default_factory=time.time)


@dataclass
class Fault:
    """Pending failures of an operation; a rate refusal's ``retry_after`` (seconds) is how
    long after it fails the network says to wait (None: the network does not say)."""

    operation: str
    kind: FaultKind
    remaining: int
    device_id: str | None = None
    retry_after: float | None = None

    def matches(self, operation: str, device_id: str) -> bool:
        return (
            self.remaining > 0
            and self.operation == operation
            and (self.device_id is None or self.device_id == device_id)
        )
