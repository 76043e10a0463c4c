"""One device's link to its neonize client: the state a session's collaborators share, and
the one way their operations reach the client (:meth:`DeviceLink.call`).

The session (:mod:`.session`), its handlers of what the Go side reports (:mod:`.handlers`)
and its operation families (``send_ops``, ``message_ops``, ``group_ops``, ``status_ops``)
each hold the same :class:`DeviceLink` and read or write its fields under :attr:`~DeviceLink.mutex`.

Every library call of an operation goes through :meth:`DeviceLink.call`: it runs on a thread
of its own with a deadline (``TIMEOUT`` after it; the call finishes by itself), and the
session state is checked inside the process-wide gate *before* the client is touched,
because on a client that is not connected several neonize calls (``get_me``,
``revoke_message``, ``contact.*``, ``chat_settings.*`` and more) abort the whole process
instead of raising. Library exceptions become :class:`NetworkError` with the library's
message (:func:`library_error`, :func:`group_error`); none is swallowed.

How a library exception reads (:func:`library_error`, :func:`group_error`):

neonize raises one exception class per call carrying whatsmeow's error text, so the kind is
read from that text. Group operations read more of it (:func:`group_error`): whatsmeow wraps
the network's answers to group queries in fixed sentences ("that group does not exist", "that
group invite link has been revoked", ...) and otherwise reports the raw answer as ``info query
returned status <code>: <text>`` (401 ``not-authorized``, 403 ``forbidden``, 404
``item-not-found``, 406 ``not-acceptable``, 409 ``conflict``, 410 ``gone``, 429
``rate-overlimit``).

A send refused for rate is a ``RATE_LIMITED`` error naming its limit (:func:`_rate_limit`): the
network's acknowledgement of a message carries an error code, which whatsmeow reports as
``server returned error <code>`` (``ErrServerReturnedError``): 463 is the reachout timelock (no
new chats for a while), 429 the rate overlimit; a 429 can also come from a query whatsmeow
makes on the way (``info query returned status 429: rate-overlimit``, e.g. fetching the
recipient's devices). Neither says until when: whatsmeow reads only the code (``retry_at`` is
None; ``docs/neonize.md``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import TypeVar

from neonize.client import NewClient
from neonize.proto.Neonize_pb2 import JID, BasicCallMeta

from gateway.failures.kinds import ErrorKind
from gateway.groups.codes import OperationCode
from gateway.latest import LatestMap

from .. import payloads
from ..port import NetworkError, NetworkEvent, RateLimit, SessionState
from .clients import ClientRunner, GatedClient, call_with_deadline
from .events import EventContext
from .jids import jid_str
from .locks import GoCallGate
from .replies import Recent
from .store import DeviceStore
from .timings import NeonizeTimings

T = TypeVar("T")
ErrorMapper = Callable[[str, BaseException], NetworkError]
"""Turns a library exception raised during an operation into a :class:`NetworkError`."""


MAX_OFFERED_CALLS = 64
"""Offers a session remembers (the latest), for rejecting them by id."""


# --- how the library's failures read ---------------------------------------------------

_OVERLIMIT = re.compile(r"rate-overlimit|(?:server returned error|returned status) 429\b")
_REACHOUT_TIMELOCK = re.compile(r"(?:server returned error|returned status) 463\b")
_TIMEOUT = ("timed out", "deadline exceeded", "timeout")
_INVALID_PHONE = ("phone number",)

_IQ_STATUS = re.compile(r"returned status (\d{3})\b")
_GROUP_NOT_FOUND = (
    "that group does not exist",  # whatsmeow ErrGroupNotFound (404 on a group query)
    "you're not participating in that group",  # ErrNotInGroup (403 on a group query)
    "that group invite link is not valid",  # ErrInviteLinkInvalid: unknown links are 404s too
    "item-not-found",
)
_INVITE_REVOKED = ("that group invite link has been revoked",)  # ErrInviteLinkRevoked (410)
_NOT_ADMIN = (
    "not-authorized",
    "forbidden",
    "permission to get the group's invite link",  # ErrGroupInviteLinkUnauthorized (401)
)
_INVALID_IMAGE = ("not a valid image",)  # ErrInvalidImageFormat (406 on a picture)


def library_error(operation: str, exc: BaseException, *, phone: bool = False) -> NetworkError:
    """A :class:`NetworkError` for an exception raised by neonize during ``operation``.

    The kind is ``NETWORK`` unless the message says the network throttled the call
    (``RATE_LIMITED``, naming which limit: :func:`_rate_limit`), gave no answer in time
    (``TIMEOUT``) or, for pair codes, refused the phone number (``INVALID``).
    """
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    limit = _rate_limit(lowered)
    if limit is not None:
        return NetworkError.rate_limited(f"{operation} failed: {text}", limit)
    if any(marker in lowered for marker in _TIMEOUT):
        kind = ErrorKind.TIMEOUT
    elif phone and any(marker in lowered for marker in _INVALID_PHONE):
        kind = ErrorKind.INVALID
    else:
        kind = ErrorKind.NETWORK
    return NetworkError(kind, f"{operation} failed: {text}")


def _rate_limit(text: str) -> RateLimit | None:
    """Which rate refusal whatsmeow's error text reports, if any: 463 in a message's
    acknowledgement is the reachout timelock; 429 (an acknowledgement's or a query's,
    ``rate-overlimit``) the overlimit. The codes are read only where whatsmeow writes them, so
    a phone number or an id with those digits is no refusal."""
    if _REACHOUT_TIMELOCK.search(text):
        return RateLimit.REACHOUT_TIMELOCK
    if _OVERLIMIT.search(text):
        return RateLimit.OVERLIMIT
    return None


def group_error(operation: str, exc: BaseException, *, joining: bool = False) -> NetworkError:
    """:func:`library_error`, plus the refusals a group operation can name.

    ``group_not_found``: the group does not exist or the device is not in it (whatsmeow's
    sentences, or a raw 404), and an invite link that is not valid (the decisions answer
    unknown links with 404). ``invite_link_revoked``: the link was reset (410).
    ``invalid_image``: the network refused the picture. ``not_group_admin``: the network
    refused the device (401 ``not-authorized``, 403 ``forbidden``), except while ``joining``,
    where those say nothing about admins and stay ``NETWORK``. While ``joining``, a raw 406
    (invalid code) is ``group_not_found`` and 409 is ``already_member``. Throttling and
    timeouts keep their kinds; anything else is ``NETWORK``.
    """
    error = library_error(operation, exc)
    if error.kind is not ErrorKind.NETWORK:
        return error
    code = _refusal(str(exc).lower(), joining=joining)
    return NetworkError.refused(code, str(error)) if code else error


def _refusal(text: str, *, joining: bool) -> str | None:
    match = _IQ_STATUS.search(text)
    status = int(match.group(1)) if match else None
    if status == 410 or any(marker in text for marker in _INVITE_REVOKED):
        return OperationCode.INVITE_LINK_REVOKED
    if any(marker in text for marker in _INVALID_IMAGE):
        return OperationCode.INVALID_IMAGE
    if status == 404 or any(marker in text for marker in _GROUP_NOT_FOUND):
        return OperationCode.GROUP_NOT_FOUND
    if joining:
        return {406: OperationCode.GROUP_NOT_FOUND, 409: OperationCode.ALREADY_MEMBER}.get(status or 0)
    if status in (401, 403) or any(marker in text for marker in _NOT_ADMIN):
        return OperationCode.NOT_GROUP_ADMIN
    return None


# --- the link --------------------------------------------------------------------------


class DeviceLink:
    """The shared state of one device's session; every field is read and written under
    :attr:`mutex` (an ``RLock``: handlers on the client thread, the loop, call threads).

    ``account`` is the paired account (None: not paired); ``runner`` the current client run;
    ``qr`` the code shown and its expiry, ``qr_count`` how many this attempt showed, and
    ``qr_seq`` a counter bumped whenever the QR rotation changes (a timer of an older one
    does nothing). ``recent`` (:class:`~.replies.Recent`) locks itself.
    """

    def __init__(self, store: DeviceStore, gate: GoCallGate, timings: NeonizeTimings) -> None:
        self.device_id = store.device_id
        self.store = store
        self.gate = gate
        self.timings = timings
        self.mutex = threading.RLock()
        self.account: JID | None = store.load_jid()
        self.state = SessionState.DISCONNECTED if self.account else SessionState.NOT_READY
        self.runner: ClientRunner | None = None
        self.qr: tuple[str, float] | None = None
        self.qr_count = 0
        self.qr_seq = 0
        self.recent = Recent()  # what quotes and poll votes need: messages and polls seen lately
        self.offered_calls: LatestMap[str, JID] = LatestMap(MAX_OFFERED_CALLS)  # call id -> caller

    def call_offered(self, meta: BasicCallMeta) -> None:
        """Keep the caller of an offer as the network named it (a LID, often): whatsmeow's
        ``RejectCall`` wants that JID, while ``call.offer`` shows the phone JID."""
        self.offered_calls.put(meta.callID, getattr(meta, "from"))  # a Python keyword

    def offered_caller(self, call_id: str) -> JID | None:
        return self.offered_calls.get(call_id)

    def own_jid(self) -> str | None:
        with self.mutex:
            return jid_str(self.account)

    def own_account(self) -> JID:
        """The account's JID protobuf; ``NOT_CONNECTED`` when the device is not logged in."""
        with self.mutex:
            account = self.account
        if account is None:
            raise NetworkError(ErrorKind.NOT_CONNECTED, f"device {self.device_id} is not logged in")
        return account

    def context(self) -> EventContext:
        """What event payloads need of the session: the device and its account."""
        with self.mutex:
            return EventContext(self.device_id, jid_str(self.account))

    def end_pairing(self, runner: ClientRunner, reason: str, error: str) -> NetworkEvent | None:
        """A pairing of ``runner`` ended without success: back to ``not_ready``; the
        ``connection.pair_error`` to emit, or None when that run no longer pairs."""
        with self.mutex:
            if runner is not self.runner or runner.stopping or self.state is not SessionState.PAIRING:
                return None
            self.state = SessionState.NOT_READY
            self.qr = None
            self.qr_seq += 1
            return payloads.pair_error(self.device_id, reason, error)

    async def call(
        self,
        operation: str,
        call: Callable[[NewClient], T],
        *,
        error: ErrorMapper = library_error,
        deadline: float | None = None,
    ) -> T:
        """Run a library call that needs a connected session, off the loop, through the gate.

        ``call`` gets a :class:`~.clients.GatedClient`: each of its method calls takes its own
        shared ticket of the gate and checks, inside it, that the session is still connected
        on the same run (so no stop slips in between). ``error`` maps the library's
        exceptions (group operations read more out of whatsmeow's messages). After
        ``deadline`` (default ``call_deadline``) the caller gets ``TIMEOUT``.
        """
        limit = self.timings.call_deadline if deadline is None else deadline
        return await call_with_deadline(lambda: self._call_now(operation, call, error), limit, operation)

    def _call_now(self, operation: str, call: Callable[[NewClient], T], error: ErrorMapper) -> T:
        runner = self.connected_runner()
        client = GatedClient(runner.client, self.gate, lambda: self.connected_runner(runner))
        try:
            return call(client)  # the gated client answers as NewClient
        except NetworkError:
            raise
        except Exception as exc:
            raise error(operation, exc) from exc

    def connected_runner(self, expected: ClientRunner | None = None) -> ClientRunner:
        """The run of a connected session (``expected``: that run still); else NOT_CONNECTED."""
        with self.mutex:
            runner, state = self.runner, self.state
        if (
            state is not SessionState.CONNECTED
            or runner is None
            or not runner.alive
            or (expected is not None and runner is not expected)
        ):
            raise NetworkError(ErrorKind.NOT_CONNECTED, f"device {self.device_id} is not connected ({state})")
        return runner
