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
message (``errors.py``); none is swallowed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from neonize.client import NewClient
from neonize.proto.Neonize_pb2 import JID, BasicCallMeta

from gateway.failures.kinds import ErrorKind

from .. import payloads
from ..port import NetworkError, NetworkEvent, SessionState
from .clients import ClientRunner, GatedClient, call_with_deadline
from .errors import library_error
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
        self.offered_calls: OrderedDict[str, JID] = OrderedDict()  # call id -> caller as offered

    def call_offered(self, meta: BasicCallMeta) -> None:
        """Keep the caller of an offer as the network named it (a LID, often): whatsmeow's
        ``RejectCall`` wants that JID, while ``call.offer`` shows the phone JID."""
        with self.mutex:
            self.offered_calls[meta.callID] = getattr(meta, "from")  # a Python keyword
            while len(self.offered_calls) > MAX_OFFERED_CALLS:
                self.offered_calls.popitem(last=False)

    def offered_caller(self, call_id: str) -> JID | None:
        with self.mutex:
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
