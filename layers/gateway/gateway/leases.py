"""Device leases: each device's network session is run by exactly one session host at a time.

A lease's liveness comes from its owner host's heartbeat, not from the lease itself, so a
host's periodic writes do not grow with the devices it runs. A host process works under one
*tenure* at a time: a random token on its heartbeat item (``host#<host_id>``), live until the
item's ``expires_at``. Each device lease names its owner host and that tenure's token, and is
live while that heartbeat is live and still carries that token.

The protocol, for a session host:

* :func:`begin` a tenure before taking any device (at start, and again after a lapse).
* :func:`renew` the tenure's heartbeat well before expiry (every ``ttl_seconds / 3`` or so):
  one conditional write per host, whatever the number of devices. ``None`` means the tenure
  is over: close every session it runs at once. Also close them if the host's own clock
  passes ``tenure.expires_at`` without a successful renewal, because from then on another
  host may take its devices over. Renewal is conditional on the tenure's token *and* on the
  heartbeat being unexpired, so a lapsed tenure can never come back to life, nor extend a
  later tenure of the same host id (a new token).
* :func:`acquire` before starting a device's session; ``None`` means another live tenure
  runs it. Taking a device from another tenure is one transaction: a condition check that
  the old tenure's heartbeat is absent, expired or carries another token, and the lease write
  conditional on the lease being unchanged since it was read. So a device is taken over only
  once its owner cannot run it any more, and of two acquirers exactly one wins.
* :func:`release` a lease on a clean end of a session, and :func:`end` the tenure on a clean
  stop, so other hosts can take over without waiting for the heartbeat to expire.

:func:`current` tells which host (and which queue) runs a device, for a host forwarding a
command (the API routes by the device record's ``host_queue_url`` and reads no lease);
:func:`live_tenures` tells which of several hosts are alive, one read per host, for the
takeover pass.

Expiry is judged by the caller's clock (``now``, ``time.time()`` by default), so
``ttl_seconds`` must exceed the renewal interval plus the clock skew between hosts plus a slow
request.

``epoch`` is a fencing token: it grows by one whenever another tenure takes the device (the
same host after a lapse included) and is kept when the same tenure acquires it again. Release
is conditional on owner, tenure and epoch, so a host that lost its lease cannot delete its
successor's. A deleted lease (released) starts again at epoch 1, so a device's tenure is
identified by ``(owner_host_id, tenure, epoch)``, not by ``epoch`` alone.

TTL deletion in DynamoDB is lazy (it can lag expiry by days), so an expired heartbeat may
still be in the table: every reader here treats an expired heartbeat as none, and so must any
other. Device leases carry no expiry: they stay until released or taken over.

Leases written by the earlier protocol (renewed per device: ``expires_at``, no ``tenure``)
are live until their own ``expires_at``, so old and new hosts never run a device twice while
a deployment replaces one with the other.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass

from pynamodb.exceptions import (
    DeleteError,
    DoesNotExist,
    PutError,
    PynamoDBException,
    TransactWriteError,
    UpdateError,
)
from pynamodb.expressions.condition import Condition
from pynamodb.transactions import TransactWrite

from gateway.models.base import transaction_connection
from gateway.models.leases import HOST_KEY_PREFIX, HostTenureModel, LeaseModel

# A lost race in acquire (someone wrote between our read and our write) is retried this many
# times in all; each retry re-reads, so a live winner ends it with None at once.
_ACQUIRE_ATTEMPTS = 3


@dataclass(frozen=True)
class Tenure:
    """A host's tenure as written or read: its heartbeat's token and expiry."""

    host_id: str
    token: str
    expires_at: int

    def is_expired(self, now: float | None = None) -> bool:
        """Expired once ``expires_at`` is in the past, the same rule the conditional writes use."""
        return self.expires_at < _now(now)


@dataclass(frozen=True)
class Lease:
    """A snapshot of a device lease; immutable so it can be passed between threads."""

    device_id: str
    tenant_id: str
    owner_host_id: str
    owner_queue_url: str | None
    epoch: int
    tenure: str | None


def begin(
    host_id: str, ttl_seconds: float, previous: Tenure | None = None, now: float | None = None
) -> Tenure | None:
    """Start a new tenure of ``host_id`` with a fresh token; ``None`` while another live tenure
    of the same host id holds the heartbeat (a process that crashed less than a TTL ago).

    ``previous``: this process's own lapsed tenure, which it may replace at once (its sessions
    are closed already). Replacing it ends every lease it still names.
    """
    now = _now(now)
    record = HostTenureModel(
        _host_key(host_id),
        host_id=host_id,
        token=secrets.token_hex(16),
        renewed_at=now,
        expires_at=_expiry(now, ttl_seconds),
    )
    free = HostTenureModel.key.does_not_exist() | (HostTenureModel.expires_at < now)
    if previous is not None:
        free |= HostTenureModel.token == previous.token
    try:
        record.save(condition=free)
    except PutError as error:
        _raise_unless_condition_failed(error)
        return None
    return _tenure(record)


def renew(tenure: Tenure, ttl_seconds: float, now: float | None = None) -> Tenure | None:
    """Extend the heartbeat to ``now + ttl_seconds``; ``None`` means the tenure is over (it
    lapsed, or was replaced): stop every session it runs now."""
    now = _now(now)
    record = HostTenureModel(_host_key(tenure.host_id))
    try:
        record.update(
            actions=[
                HostTenureModel.renewed_at.set(now),
                HostTenureModel.expires_at.set(_expiry(now, ttl_seconds)),
            ],
            condition=(HostTenureModel.token == tenure.token) & (HostTenureModel.expires_at >= now),
        )
    except UpdateError as error:
        _raise_unless_condition_failed(error)
        return None
    return _tenure(record)


def end(tenure: Tenure) -> bool:
    """Delete the heartbeat on a clean stop: every lease still naming the tenure ends at once.
    Conditional on the token, so it never ends a later tenure of the same host id."""
    try:
        HostTenureModel(_host_key(tenure.host_id)).delete(condition=HostTenureModel.token == tenure.token)
    except DeleteError as error:
        _raise_unless_condition_failed(error)
        return False
    return True


def acquire(
    device_id: str, tenant_id: str, tenure: Tenure, queue_url: str | None, now: float | None = None
) -> Lease | None:
    """Take the lease of ``device_id`` for ``tenure``, or ``None`` if another live tenure holds it.

    The new epoch depends on the current owner (kept for our tenure, one more for another), so
    the lease is read first and the write is conditional on it being unchanged since that
    read: a concurrent acquirer makes the write fail instead of both hosts winning. Taking it
    from another tenure also checks, in the same transaction, that its heartbeat is not live.
    The caller must only use a tenure its own clock still sees live.
    """
    now = _now(now)
    for _ in range(_ACQUIRE_ATTEMPTS):
        seen = _get(device_id, consistent=True)
        record = LeaseModel(
            device_id,
            tenant_id=tenant_id,
            owner_host_id=tenure.host_id,
            owner_queue_url=queue_url,
            epoch=_next_epoch(seen, tenure),
            tenure=tenure.token,
            acquired_at=now,
        )
        try:
            if seen is None or _is_ours(seen, tenure):
                record.save(condition=_unchanged(seen))
            elif seen.tenure is None:  # a lease of the earlier protocol: live until its expiry
                if not seen.expires_at < now:
                    return None
                record.save(condition=_unchanged(seen) & (LeaseModel.expires_at < now))
            else:
                if _live_tenure(seen.owner_host_id, seen.tenure, now) is not None:
                    return None
                _take_over(record, seen, now)
        except (PutError, TransactWriteError) as error:
            _raise_unless_condition_failed(error)
            continue  # Someone wrote in between: look again.
        return _lease(record)
    return None


def release(lease: Lease) -> bool:
    """Delete our lease so another host can take over at once.

    Conditional on owner, tenure and epoch, so a host that already lost the lease cannot
    delete its successor's. Returns whether it deleted anything; a lease already gone or
    taken is no error.
    """
    held = (
        (LeaseModel.owner_host_id == lease.owner_host_id)
        & (LeaseModel.tenure == lease.tenure)
        & (LeaseModel.epoch == lease.epoch)
    )
    try:
        LeaseModel(lease.device_id).delete(condition=held)
    except DeleteError as error:
        _raise_unless_condition_failed(error)
        return False
    return True


def forget(device_id: str) -> None:
    """Delete the device's lease, whoever holds it: only for a device being deleted, once its
    session was stopped (a lease left then is a dead host's, which the TTL never clears)."""
    LeaseModel(device_id).delete()


def current(device_id: str, consistent: bool = True, now: float | None = None) -> Lease | None:
    """The live lease of ``device_id``: who runs it and where its commands go; ``None`` if none.

    Two reads: the lease, then its owner's heartbeat. Consistent by default, because an
    eventually consistent read may return the previous owner just after a takeover.
    """
    now = _now(now)
    record = _get(device_id, consistent=consistent)
    if record is None:
        return None
    if record.tenure is None:
        return None if record.expires_at is None or record.expires_at < now else _lease(record)
    if _live_tenure(record.owner_host_id, record.tenure, now, consistent) is None:
        return None
    return _lease(record)


def live_tenures(host_ids: Iterable[str], now: float | None = None) -> dict[str, Tenure]:
    """The live tenure of each of ``host_ids`` that has one: one (eventually consistent) read
    per host, however many devices they run. For the takeover pass, which only skips the
    devices of these hosts; :func:`acquire` decides with consistent reads."""
    now = _now(now)
    keys = sorted({_host_key(host_id) for host_id in host_ids})
    found = [_tenure(record) for record in HostTenureModel.batch_get(keys)] if keys else []
    return {tenure.host_id: tenure for tenure in found if not tenure.is_expired(now)}


def _take_over(record: LeaseModel, seen: LeaseModel, now: float) -> None:
    """Write ``record`` over another tenure's lease if that tenure is still not live."""
    heartbeat = HostTenureModel
    not_live = (
        heartbeat.key.does_not_exist() | (heartbeat.token != seen.tenure) | (heartbeat.expires_at < now)
    )
    with TransactWrite(connection=transaction_connection()) as transaction:
        transaction.condition_check(HostTenureModel, _host_key(seen.owner_host_id), condition=not_live)
        transaction.save(record, condition=_unchanged(seen))


def _next_epoch(seen: LeaseModel | None, tenure: Tenure) -> int:
    if seen is None:
        return 1
    return int(seen.epoch) + (0 if _is_ours(seen, tenure) else 1)


def _is_ours(seen: LeaseModel, tenure: Tenure) -> bool:
    return seen.owner_host_id == tenure.host_id and seen.tenure == tenure.token


def _unchanged(seen: LeaseModel | None) -> Condition:
    """The lease is as read: absent, or the same owner, tenure and epoch."""
    if seen is None:
        return LeaseModel.device_id.does_not_exist()
    same_tenure = (
        LeaseModel.tenure.does_not_exist() if seen.tenure is None else LeaseModel.tenure == seen.tenure
    )
    unchanged: Condition = (
        (LeaseModel.owner_host_id == seen.owner_host_id) & (LeaseModel.epoch == seen.epoch) & same_tenure
    )
    return unchanged


def _live_tenure(host_id: str, token: str, now: float, consistent: bool = True) -> Tenure | None:
    """The tenure ``token`` of ``host_id`` if its heartbeat is live and still carries it."""
    try:
        record = HostTenureModel.get(_host_key(host_id), consistent_read=consistent)
    except DoesNotExist:
        return None
    tenure = _tenure(record)
    return tenure if tenure.token == token and not tenure.is_expired(now) else None


def _host_key(host_id: str) -> str:
    return f"{HOST_KEY_PREFIX}{host_id}"


def _now(now: float | None) -> float:
    return time.time() if now is None else now


def _expiry(now: float, ttl_seconds: float) -> int:
    """Whole epoch seconds, the form DynamoDB TTL expects; rounded up so the tenure is never short."""
    if ttl_seconds <= 0:
        raise ValueError("ttl_seconds must be positive")
    return math.ceil(now + ttl_seconds)


def _get(device_id: str, consistent: bool) -> LeaseModel | None:
    try:
        return LeaseModel.get(device_id, consistent_read=consistent)
    except DoesNotExist:
        return None


def _raise_unless_condition_failed(error: PynamoDBException) -> None:
    """Only a failed condition means "not ours"; throttling or network errors must propagate."""
    if isinstance(error, TransactWriteError):
        # Cancelled by a failed condition, or (DynamoDB) by a concurrent transaction on an item.
        reasons = [reason.code for reason in error.cancellation_reasons or [] if reason is not None]
        if reasons and set(reasons) <= {"ConditionalCheckFailed", "TransactionConflict"}:
            return
        raise error
    if error.cause_response_code != "ConditionalCheckFailedException":
        raise error


def _tenure(record: HostTenureModel) -> Tenure:
    return Tenure(host_id=record.host_id, token=record.token, expires_at=int(record.expires_at))


def _lease(record: LeaseModel) -> Lease:
    return Lease(
        device_id=record.device_id,
        tenant_id=record.tenant_id,
        owner_host_id=record.owner_host_id,
        owner_queue_url=record.owner_queue_url,
        epoch=int(record.epoch),
        tenure=record.tenure,
    )
