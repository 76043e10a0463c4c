"""The send outbox: where a send waits until the session host that runs the device sends it.

The API writes a new send (:func:`new_send`, :func:`store`) and names it in its ``SEND_TEXT`` command, whole
(``gateway.bus.contracts.messages.SendTextArgs``), so the host needs no read to start it;
the host also reads a device's unfinished sends in request order (:func:`unfinished`, the sparse ``pending``
index) to find those whose command never reached it. Each send moves on with conditional
writes: ``queued`` → ``sending`` (:func:`claim`, with the lease epoch of the host making
the network call) → ``sent`` or ``failed``; a send the network never saw goes back to
``queued`` (:func:`requeue`); a ``queued`` send may be ``canceled`` instead (:func:`cancel`),
and GET /sends lists a device's sends (:func:`page`). Failed and canceled items expire after
:data:`KEEP_FINISHED_SECONDS`, sent ones after :data:`KEEP_SENT_SECONDS`: the outbox is also
the gateway's record of what its devices sent, which DELETE /messages/{message_id} finds by
either id (:func:`find`) and marks (:func:`mark_revoked`, :func:`mark_deleted_for_me`).

A claim may come before the API's own write lands (the API writes and sends the command at
the same time): it then writes the whole item itself, and the API's write, conditional on
the item being new, changes nothing.

These functions block (PynamoDB); the session host runs them on its AWS threads.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from pynamodb.exceptions import DoesNotExist, PutError, UpdateError
from pynamodb.expressions.condition import Condition

from gateway import clock
from gateway.failures.kinds import ErrorKind
from gateway.messages.sends import TEXT, UNFINISHED, Send, SendState
from gateway.models import SendModel
from gateway.models.base import delete_partition
from gateway.pagination import Listing, Page, PageRequest, read_page

KEEP_FINISHED_SECONDS = 7 * 24 * 3600
"""How long a sent or failed item stays readable (status, idempotent answers)."""
KEEP_SENT_SECONDS = 90 * 24 * 3600
"""How long a sent item stays: a message can be deleted for me at any time, but only while
the gateway still knows it (then 404 MESSAGE_NOT_FOUND, as for a message it never sent)."""
KEEP_UNFINISHED_SECONDS = 30 * 24 * 3600
"""A send that never went out (its device never came back) is dropped after this."""
FILTERED_READ_SIZE = 200
"""Items one read of a state-filtered page evaluates at least (see :func:`page`)."""


def device_key(tenant_id: str, device_id: str) -> str:
    return f"{tenant_id}#{device_id}"


def send_key(requested_at: float, message_id: str) -> str:
    """``<requested_at in ms, 13 digits>#<message_id>``: sorts in request order."""
    return f"{int(requested_at * 1000):013d}#{message_id}"


def new_message_id() -> str:
    """The gateway's id for a send (the network's own id is known only once it is sent)."""
    return uuid.uuid4().hex.upper()


def new_send(
    tenant_id: str,
    device_id: str,
    *,
    chat_jid: str,
    text: str,
    delay_seconds: float = 0,
    typing_seconds: float = 0,
    disable_presence: bool = False,
    message_id: str | None = None,
    requested_at: float | None = None,
    kind: str = TEXT,
    payload: dict[str, Any] | None = None,
    reply_to: str | None = None,
    send_at: float | None = None,
) -> Send:
    """A new ``queued`` send, not stored yet (see :func:`store`); due ``delay_seconds`` after
    its request, or after ``send_at`` when it is planned (the pacing applies then)."""
    message_id = message_id or new_message_id()
    requested_at = clock.now() if requested_at is None else requested_at
    return Send(
        tenant_id=tenant_id,
        device_id=device_id,
        send_key=send_key(requested_at, message_id),
        message_id=message_id,
        chat_jid=chat_jid,
        text=text,
        delay_seconds=delay_seconds,
        typing_seconds=typing_seconds,
        disable_presence=disable_presence,
        requested_at=requested_at,
        not_before=(requested_at if send_at is None else send_at) + delay_seconds,
        state=SendState.QUEUED,
        kind=kind,
        payload=payload,
        reply_to=reply_to,
    )


def store(send: Send) -> None:
    """Write a new send; a no-op when a host's claim already wrote it (see the module)."""
    item = SendModel(device_key(send.tenant_id, send.device_id), send.send_key, **_new_attributes(send))
    try:
        item.save(condition=SendModel.send_key.does_not_exist())
    except PutError as error:
        if error.cause_response_code != "ConditionalCheckFailedException":
            raise


def get(tenant_id: str, device_id: str, key: str) -> Send | None:
    try:
        return _send(SendModel.get(device_key(tenant_id, device_id), key, consistent_read=True))
    except DoesNotExist:
        return None


def unfinished(tenant_id: str, device_id: str) -> list[Send]:
    """The device's ``queued`` and ``sending`` items in request order, from the sparse
    ``pending`` index: what it costs does not grow with the device's finished sends.

    The index is eventually consistent: a send written a moment ago may be missing (its
    command brings it) and one just finished may still show (its claim then fails)."""
    condition = SendModel.state.is_in(*(state.value for state in UNFINISHED))
    items = SendModel.pending.query(device_key(tenant_id, device_id), filter_condition=condition)
    return [_send(item) for item in items]


def last_sent_at(tenant_id: str, device_id: str, recent: int = 20) -> float | None:
    """When the device's latest send went out, among its ``recent`` latest requests: a new
    owner spaces its first dispatch from it (the minimum interval survives a takeover)."""
    items = SendModel.query(
        device_key(tenant_id, device_id), scan_index_forward=False, limit=recent, consistent_read=True
    )
    times = [float(item.sent_at) for item in items if item.sent_at is not None]
    return max(times, default=None)


def claim(send: Send, epoch: int) -> bool:
    """``queued`` → ``sending`` for the host holding the device's lease at ``epoch``; False
    when the item is no longer queued (another tenure took it). An item the API has not
    written yet is written whole, already ``sending`` (see the module).

    One conditional PutItem of the whole item (the send is known whole): the one write
    between a send's command and its network call."""
    attributes = _new_attributes(send) | {"state": SendState.SENDING.value, "sending_epoch": epoch}
    item = SendModel(device_key(send.tenant_id, send.device_id), send.send_key, **attributes)
    try:
        item.save(condition=(SendModel.state == SendState.QUEUED.value) | SendModel.send_key.does_not_exist())
    except PutError as error:
        if error.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def requeue(send: Send, epoch: int, not_before: float | None = None) -> bool:
    """``sending`` → ``queued``: the network certainly did not get it (not connected, or
    refused it for rate); due again at ``not_before`` when given (the end of a pause)."""
    due = [] if not_before is None else [SendModel.not_before.set(not_before)]
    return _update(
        send,
        [SendModel.state.set(SendState.QUEUED.value), SendModel.sending_epoch.remove(), *due],
        _sending_at(epoch),
    )


def mark_sent(send: Send, epoch: int, network_message_id: str, sent_at: float) -> bool:
    return _update(
        send,
        [
            SendModel.state.set(SendState.SENT.value),
            SendModel.pending_key.remove(),
            SendModel.network_message_id.set(network_message_id),
            SendModel.sent_at.set(sent_at),
            SendModel.expires_at.set(int(sent_at + KEEP_SENT_SECONDS)),
        ],
        _sending_at(epoch),
    )


def mark_failed(send: Send, error: str, *, kind: ErrorKind, epoch: int | None = None) -> bool:
    """``sending`` (by ``epoch``, or by any tenure when None: an interrupted dispatch) →
    ``failed``, for the reason ``kind`` (the error kind the host answers with)."""
    condition = _sending_at(epoch) if epoch is not None else SendModel.state == SendState.SENDING.value
    return _update(
        send,
        [
            SendModel.state.set(SendState.FAILED.value),
            SendModel.pending_key.remove(),
            SendModel.error.set(error[:1000]),
            SendModel.error_kind.set(kind.value),
            SendModel.expires_at.set(int(time.time() + KEEP_FINISHED_SECONDS)),
        ],
        condition,
    )


def cancel(send: Send) -> bool:
    """``queued`` → ``canceled``; False when it is no longer queued (a host claimed it: it
    is being sent or went out, or it was already canceled). Conditional, as :func:`claim`
    is: of a cancel and a claim racing, exactly one wins, so a canceled send is never sent."""
    return _update(
        send,
        [
            SendModel.state.set(SendState.CANCELED.value),
            SendModel.pending_key.remove(),
            SendModel.expires_at.set(int(time.time() + KEEP_FINISHED_SECONDS)),
        ],
        SendModel.state == SendState.QUEUED.value,
    )


def page(
    tenant_id: str, device_id: str, request: PageRequest, states: tuple[SendState, ...] = ()
) -> Page[Send]:
    """A page of the device's sends, newest request first; only those in ``states`` when
    given. One Query of the device's partition per page (a filter reads more per page: the
    items it drops still cost their read)."""
    listing = Listing("sends", SendModel, partition=device_key(tenant_id, device_id))
    condition = SendModel.state.is_in(*(state.value for state in states)) if states else None
    read_size = None if condition is None else max(request.limit + 1, FILTERED_READ_SIZE)
    found = read_page(listing, request, filter_condition=condition, newest_first=True, read_size=read_size)
    return found.map(_send)


def find(tenant_id: str, device_id: str, message_id: str) -> Send | None:
    """The device's send named by the gateway's id or by the network's, else None.

    Read through the keys-only indexes (one Query each, never the device's partition), then
    consistently from the table, so the state is current.
    """
    key = device_key(tenant_id, device_id)
    lookups = (
        (SendModel.by_message_id, SendModel.message_id == message_id),
        (SendModel.by_network_message_id, SendModel.network_message_id == message_id),
    )
    for index, condition in lookups:
        for item in index.query(key, condition, limit=1):
            found = get(tenant_id, device_id, item.send_key)
            if found is not None:
                return found
    return None


def gateway_ids(tenant_id: str, device_id: str, network_message_ids: list[str]) -> dict[str, str]:
    """The gateway's ids of the device's sends named by the network's ids (those it has), by
    network id: what receipts name, for ``gateway_message_ids``.

    One Query of the keys-only index per id and no read of the table: the gateway's id is the
    tail of the send's key (:func:`send_key`)."""
    key = device_key(tenant_id, device_id)
    found: dict[str, str] = {}
    for network_id in dict.fromkeys(network_message_ids):
        for item in SendModel.by_network_message_id.query(
            key, SendModel.network_message_id == network_id, limit=1
        ):
            found[network_id] = item.send_key.split("#", 1)[1]
    return found


def delete_device_sends(tenant_id: str, device_id: str) -> int:
    """Delete every send of the device, finished or not (its device is being deleted); how
    many there were."""
    return delete_partition(SendModel, device_key(tenant_id, device_id))


def mark_revoked(send: Send, at: float) -> bool:
    """Deleted for everyone: once only, and not after a delete for me (False then)."""
    return _update(
        send,
        [SendModel.revoked_at.set(at)],
        (SendModel.state == SendState.SENT.value)
        & SendModel.revoked_at.does_not_exist()
        & SendModel.deleted_for_me_at.does_not_exist(),
    )


def mark_deleted_for_me(send: Send, at: float) -> bool:
    """Deleted from the account's own view: once only (False then)."""
    return _update(
        send,
        [SendModel.deleted_for_me_at.set(at)],
        (SendModel.state == SendState.SENT.value) & SendModel.deleted_for_me_at.does_not_exist(),
    )


def _new_attributes(send: Send) -> dict[str, Any]:
    """The attributes of a send as first written (by the API, or by a claim that came first)."""
    return {
        "message_id": send.message_id,
        "chat_jid": send.chat_jid,
        "text": send.text,
        "delay_seconds": send.delay_seconds,
        "typing_seconds": send.typing_seconds,
        "disable_presence": send.disable_presence,
        "requested_at": send.requested_at,
        "not_before": send.not_before,
        "state": SendState.QUEUED.value,
        "pending_key": send.send_key,
        "expires_at": int(send.not_before + KEEP_UNFINISHED_SECONDS),
        "kind": send.kind,
        "payload": send.payload,
        "reply_to": send.reply_to,
    }


def _sending_at(epoch: int) -> Condition:
    sending: Condition = (SendModel.state == SendState.SENDING.value) & (SendModel.sending_epoch == epoch)
    return sending


def _update(send: Send, actions: list[Any], condition: Condition) -> bool:
    item = SendModel(device_key(send.tenant_id, send.device_id), send.send_key)
    try:
        item.update(actions=actions, condition=condition & SendModel.send_key.exists())
    except UpdateError as error:
        if error.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def _send(item: SendModel) -> Send:
    tenant_id, device_id = item.device_key.split("#", 1)
    return Send(
        tenant_id=tenant_id,
        device_id=device_id,
        send_key=item.send_key,
        message_id=item.message_id,
        chat_jid=item.chat_jid,
        text=item.text,
        delay_seconds=float(item.delay_seconds or 0),
        typing_seconds=float(item.typing_seconds or 0),
        disable_presence=bool(item.disable_presence),
        requested_at=float(item.requested_at),
        not_before=float(item.not_before),
        state=SendState(item.state),
        sending_epoch=int(item.sending_epoch) if item.sending_epoch is not None else None,
        network_message_id=item.network_message_id,
        sent_at=float(item.sent_at) if item.sent_at is not None else None,
        error=item.error,
        error_kind=ErrorKind.read(item.error_kind) if item.error_kind else None,
        revoked_at=float(item.revoked_at) if item.revoked_at is not None else None,
        deleted_for_me_at=float(item.deleted_for_me_at) if item.deleted_for_me_at is not None else None,
        kind=item.kind or TEXT,
        payload=item.payload,
        reply_to=item.reply_to,
    )
