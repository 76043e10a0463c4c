"""Device leases: each device's network session is run by exactly one session host at a time.

The protocol, for a session host:

* :func:`acquire` before starting a device's session; ``None`` means another live host runs it.
* :func:`renew` well before expiry (every ``ttl_seconds / 3`` or so). ``None`` means the lease
  was taken over: stop the session at once. Also stop it if the host's own clock passes
  ``lease.expires_at`` without a successful renewal, because from then on another host may
  take the device over.
* :func:`release` on a clean shutdown, so another host can take over without waiting for expiry.

For the API side, :func:`current` tells which host (and which queue) runs a device.

Every write is a single conditional DynamoDB write, so two hosts can never both win: the
loser's condition fails and it gets ``None``. Expiry is judged by the caller's clock (``now``,
``time.time()`` by default), so ``ttl_seconds`` must exceed the renewal interval plus the
clock skew between hosts plus a slow request.

``epoch`` is a fencing token: it grows by one on every takeover by another host and is kept on
renewal and on re-acquisition by the same host. Renewal and release are conditional on both
``owner_host_id`` and ``epoch``, so a host that lost its lease can neither extend nor delete
its successor's. A deleted lease (released, or removed by TTL) starts again at epoch 1, so a
tenure is identified by the pair ``(owner_host_id, epoch)``, not by ``epoch`` alone.

TTL deletion in DynamoDB is lazy (it can lag expiry by days), so an expired lease may still be
in the table: every reader here treats an expired item as no lease, and so must any other.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection
from dataclasses import dataclass

from pynamodb.exceptions import DeleteError, DoesNotExist, PutError, PynamoDBException, UpdateError
from pynamodb.expressions.condition import Condition

from gateway.models.leases import LeaseModel

# A lost race in acquire (someone wrote between our read and our write) is retried this many
# times in all; each retry re-reads, so a live winner ends it with None at once.
_ACQUIRE_ATTEMPTS = 3


@dataclass(frozen=True)
class Lease:
    """A snapshot of a lease as written or read; immutable so it can be passed between threads."""

    device_id: str
    tenant_id: str
    owner_host_id: str
    owner_queue_url: str | None
    epoch: int
    expires_at: int

    def is_expired(self, now: float | None = None) -> bool:
        """Expired once ``expires_at`` is in the past, the same rule the conditional writes use."""
        return self.expires_at < _now(now)


def acquire(
    device_id: str,
    tenant_id: str,
    host_id: str,
    queue_url: str | None,
    ttl_seconds: float,
    now: float | None = None,
) -> Lease | None:
    """Take the lease of ``device_id`` for ``host_id``, or ``None`` if another live host holds it.

    Succeeds only if there is no lease, it has expired, or it is already ours. The new epoch
    depends on the current owner (kept for ours, one more for a takeover), so the lease is read
    first and the write is also conditional on owner and epoch being unchanged since that read:
    a concurrent acquirer makes the write fail instead of both hosts winning.
    """
    now = _now(now)
    expires_at = _expiry(now, ttl_seconds)
    for _ in range(_ACQUIRE_ATTEMPTS):
        seen = _get(device_id, consistent=True)
        if seen is not None and seen.owner_host_id != host_id and not seen.expires_at < now:
            return None
        if seen is None:
            epoch = 1
            unchanged = LeaseModel.device_id.does_not_exist()
        else:
            epoch = int(seen.epoch) + (0 if seen.owner_host_id == host_id else 1)
            unchanged = (LeaseModel.owner_host_id == seen.owner_host_id) & (LeaseModel.epoch == seen.epoch)
        free_or_ours = (
            LeaseModel.device_id.does_not_exist()
            | (LeaseModel.expires_at < now)
            | (LeaseModel.owner_host_id == host_id)
        )
        record = LeaseModel(
            device_id,
            tenant_id=tenant_id,
            owner_host_id=host_id,
            owner_queue_url=queue_url,
            epoch=epoch,
            renewed_at=now,
            expires_at=expires_at,
        )
        try:
            record.save(condition=free_or_ours & unchanged)
        except PutError as error:
            _raise_unless_condition_failed(error)
            continue  # Someone wrote in between: look again.
        return _lease(record)
    return None


def renew(lease: Lease, ttl_seconds: float, now: float | None = None) -> Lease | None:
    """Extend our lease to ``now + ttl_seconds``; ``None`` means it is lost: stop the session now.

    Conditional on owner and epoch unchanged, not on expiry: if our lease expired but nobody
    took it over, nobody else ran the device, so extending it is safe.
    """
    now = _now(now)
    record = LeaseModel(lease.device_id)
    try:
        record.update(
            actions=[LeaseModel.renewed_at.set(now), LeaseModel.expires_at.set(_expiry(now, ttl_seconds))],
            condition=_held_by(lease),
        )
    except UpdateError as error:
        _raise_unless_condition_failed(error)
        return None
    return _lease(record)


def release(lease: Lease) -> bool:
    """Delete our lease so another host can take over at once.

    Conditional on owner and epoch, so a host that already lost the lease cannot delete its
    successor's. Returns whether it deleted anything; a lease already gone or taken is no error.
    """
    try:
        LeaseModel(lease.device_id).delete(condition=_held_by(lease))
    except DeleteError as error:
        _raise_unless_condition_failed(error)
        return False
    return True


def current(device_id: str, consistent: bool = True, now: float | None = None) -> Lease | None:
    """The live lease of ``device_id``: who runs it and where its commands go; ``None`` if none.

    Consistent by default, because an eventually consistent read may return the previous owner
    just after a takeover. An expired lease not yet deleted by TTL is ``None``.
    """
    record = _get(device_id, consistent=consistent)
    if record is None or record.expires_at < _now(now):
        return None
    return _lease(record)


def live(device_ids: Collection[str], now: float | None = None) -> dict[str, Lease]:
    """The live leases among ``device_ids``, by device id: BatchGetItem, 100 a call.

    Eventually consistent, so advisory: for a pass that only skips the devices some host
    runs (a restore), then takes the others through :func:`acquire`, which reads again.
    """
    if not device_ids:
        return {}
    now = _now(now)
    return {
        record.device_id: _lease(record)
        for record in LeaseModel.batch_get(list(device_ids))
        if not record.expires_at < now
    }


def expired(now: float | None = None, limit: int = 100) -> list[Lease]:
    """Up to ``limit`` leases whose expiry has passed, e.g. for a sweeper that restarts sessions.

    A filtered Scan, so it reads the whole table page by page: for background jobs, not for
    request paths. The result is advisory: TTL may delete these items at any time and another
    host may acquire them meanwhile, so act on one only through :func:`acquire`.
    """
    now = _now(now)
    return [_lease(record) for record in LeaseModel.scan(LeaseModel.expires_at < now, limit=limit)]


def _now(now: float | None) -> float:
    return time.time() if now is None else now


def _expiry(now: float, ttl_seconds: float) -> int:
    """Whole epoch seconds, the form DynamoDB TTL expects; rounded up so the lease is never short."""
    if ttl_seconds <= 0:
        raise ValueError("ttl_seconds must be positive")
    return math.ceil(now + ttl_seconds)


def _held_by(lease: Lease) -> Condition:
    return (LeaseModel.owner_host_id == lease.owner_host_id) & (LeaseModel.epoch == lease.epoch)


def _get(device_id: str, consistent: bool) -> LeaseModel | None:
    try:
        return LeaseModel.get(device_id, consistent_read=consistent)
    except DoesNotExist:
        return None


def _raise_unless_condition_failed(error: PynamoDBException) -> None:
    """Only a failed condition means "not ours"; throttling or network errors must propagate."""
    if error.cause_response_code != "ConditionalCheckFailedException":
        raise error


def _lease(record: LeaseModel) -> Lease:
    return Lease(
        device_id=record.device_id,
        tenant_id=record.tenant_id,
        owner_host_id=record.owner_host_id,
        owner_queue_url=record.owner_queue_url,
        epoch=int(record.epoch),
        expires_at=int(record.expires_at),
    )
