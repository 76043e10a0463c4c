"""Device leases against the local stack's LeasesTable (moto): one owner host per device.

Every call passes ``now`` explicitly, so expiry is decided by the test, not by the wall clock.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from gateway import leases
from gateway.models.leases import LeaseModel
from local_stack.stack import LocalStack

TTL = 30
TENANT = "tenant-leases"


@pytest.fixture
def device_id(stack: LocalStack) -> str:
    """A fresh device per test, so tests share the table but never a lease."""
    return f"device-{uuid.uuid4().hex}"


@pytest.fixture
def t0() -> float:
    """A base time near the real clock, so the items look like real ones."""
    return float(int(time.time()))


def queue(host: str) -> str:
    return f"https://sqs.us-east-1.amazonaws.com/000000000000/{host}"


def acquire(device_id: str, host: str, now: float) -> leases.Lease | None:
    return leases.acquire(device_id, TENANT, host, queue(host), TTL, now=now)


def test_first_acquire_wins_and_second_host_gets_none_while_live(device_id: str, t0: float) -> None:
    # Given host-a holds the lease
    first = acquire(device_id, "host-a", t0)

    # When host-b tries while it is live, even at its very last second
    second = acquire(device_id, "host-b", t0 + 1)
    at_expiry = acquire(device_id, "host-b", t0 + TTL)

    # Then host-a owns it from epoch 1, with its queue, and host-b gets nothing
    assert first == leases.Lease(device_id, TENANT, "host-a", queue("host-a"), 1, int(t0) + TTL)
    assert second is None
    assert at_expiry is None
    assert leases.current(device_id, now=t0 + 1) == first


def test_takeover_after_expiry_increments_epoch_and_fences_the_old_owner(device_id: str, t0: float) -> None:
    # Given host-a's lease expired without renewal
    old = acquire(device_id, "host-a", t0)
    assert old is not None
    later = t0 + TTL + 1

    # When host-b acquires it
    new = acquire(device_id, "host-b", later)

    # Then host-b owns it with the next epoch
    assert new is not None
    assert (new.owner_host_id, new.owner_queue_url, new.epoch) == ("host-b", queue("host-b"), old.epoch + 1)
    assert new.expires_at == int(later) + TTL

    # When the old owner tries to renew and then release
    renewed = leases.renew(old, TTL, now=later + 1)
    released = leases.release(old)

    # Then it learns it lost the lease, and the new owner's lease is untouched
    assert renewed is None
    assert released is False
    assert leases.current(device_id, now=later + 1) == new


def test_same_host_reacquire_keeps_epoch(device_id: str, t0: float) -> None:
    # Given host-a holds a lease taken over once (epoch 2)
    acquire(device_id, "host-a", t0)
    held = acquire(device_id, "host-b", t0 + TTL + 1)
    assert held is not None
    assert held.epoch == 2

    # When host-b acquires again, both while live and after its own lease expired
    again = acquire(device_id, "host-b", t0 + TTL + 5)
    after_expiry = acquire(device_id, "host-b", t0 + 3 * TTL)

    # Then it is still host-b's tenure: same epoch, later expiry
    assert again is not None
    assert after_expiry is not None
    assert (again.epoch, after_expiry.epoch) == (2, 2)
    assert again.expires_at == int(t0) + 2 * TTL + 5
    assert after_expiry.expires_at == int(t0) + 4 * TTL


def test_renew_extends_expiry_and_keeps_others_out(device_id: str, t0: float) -> None:
    # Given host-a's lease, renewed shortly before it would expire
    lease = acquire(device_id, "host-a", t0)
    assert lease is not None
    renewed = leases.renew(lease, TTL, now=t0 + TTL - 1)

    # When host-b tries after the original expiry, within the renewed one
    taken = acquire(device_id, "host-b", t0 + TTL + 1)

    # Then the renewal moved the expiry, kept the epoch, and host-b is kept out
    assert renewed == leases.Lease(device_id, TENANT, "host-a", queue("host-a"), 1, int(t0) + 2 * TTL - 1)
    assert taken is None
    record = LeaseModel.get(device_id, consistent_read=True)
    assert record.renewed_at == t0 + TTL - 1


def test_release_frees_the_lease_for_another_host(device_id: str, t0: float) -> None:
    # Given host-a's live lease
    lease = acquire(device_id, "host-a", t0)
    assert lease is not None

    # When host-a releases it
    released = leases.release(lease)

    # Then it is gone, a second release is no error, and host-b acquires at once
    assert released is True
    assert leases.current(device_id, now=t0 + 1) is None
    assert leases.release(lease) is False
    taken = acquire(device_id, "host-b", t0 + 1)
    assert taken is not None
    assert taken.owner_host_id == "host-b"


def test_current_hides_expired_leases(device_id: str, t0: float) -> None:
    # Given a lease that expires at t0 + TTL, still in the table (TTL deletion is lazy)
    lease = acquire(device_id, "host-a", t0)

    # When the API side looks up the owner before and after expiry
    live = leases.current(device_id, now=t0 + TTL)
    stale = leases.current(device_id, now=t0 + TTL + 1)

    # Then it sees the owner while live and nothing once expired, though the item remains
    assert live == lease
    assert leases.current(device_id, consistent=False, now=t0 + TTL) == lease
    assert stale is None
    assert LeaseModel.get(device_id, consistent_read=True).owner_host_id == "host-a"
    assert leases.current(f"device-{uuid.uuid4().hex}") is None


def test_live_reads_many_leases_and_leaves_out_expired_and_missing_ones(device_id: str, t0: float) -> None:
    # Given 150 devices with live leases (more than one batch), one expired, one never leased
    held = [f"device-{uuid.uuid4().hex}" for _ in range(150)]
    expected = {d: leases.acquire(d, TENANT, "host-a", queue("host-a"), 10_000, now=t0) for d in held}
    leases.acquire(device_id, TENANT, "host-b", None, 10, now=t0)
    never = f"device-{uuid.uuid4().hex}"

    # When a restore pass reads them all at once after the short lease's expiry
    found = leases.live([*held, device_id, never], now=t0 + 100)

    # Then it gets exactly the live leases, as written
    assert found == expected
    assert leases.live([]) == {}


def test_expired_lists_only_leases_past_expiry(device_id: str, t0: float) -> None:
    # Given one lease that expires early and one that lives long
    old = leases.acquire(device_id, TENANT, "host-a", None, 10, now=t0)
    live_device = f"device-{uuid.uuid4().hex}"
    leases.acquire(live_device, TENANT, "host-a", None, 10_000, now=t0)

    # When listing expired leases after the first one's expiry
    found = leases.expired(now=t0 + 100, limit=10_000)

    # Then the expired one is listed as it was, and the live one is not
    by_device = {lease.device_id: lease for lease in found}
    assert by_device[device_id] == old
    assert live_device not in by_device
    assert all(lease.expires_at < t0 + 100 for lease in found)
    assert len(leases.expired(now=t0 + 100, limit=1)) == 1


def test_ttl_must_be_positive(device_id: str, t0: float) -> None:
    # Given / When / Then a zero TTL is refused before anything is written
    with pytest.raises(ValueError, match="ttl_seconds"):
        leases.acquire(device_id, TENANT, "host-a", None, 0, now=t0)
    assert leases.current(device_id, now=t0) is None


@pytest.mark.parametrize("expired_before", [False, True], ids=["free", "expired"])
@pytest.mark.parametrize("round_", range(5))
def test_concurrent_acquire_has_exactly_one_winner(
    stack: LocalStack, t0: float, round_: int, expired_before: bool
) -> None:
    # Given a device whose lease is free (or held by a host whose lease expired)
    device_id = f"device-{uuid.uuid4().hex}"
    now = t0
    if expired_before:
        assert acquire(device_id, "host-old", t0 - 2 * TTL) is not None
    hosts = [f"host-{i}" for i in range(8)]
    start = threading.Barrier(len(hosts))

    def contend(host: str) -> leases.Lease | None:
        start.wait()
        return acquire(device_id, host, now)

    # When 8 hosts acquire it at the same moment
    with ThreadPoolExecutor(max_workers=len(hosts)) as pool:
        results = list(pool.map(contend, hosts))

    # Then exactly one wins, and the table names that winner
    winners = [lease for lease in results if lease is not None]
    assert len(winners) == 1, results
    assert winners[0].epoch == (2 if expired_before else 1)
    assert leases.current(device_id, now=now) == winners[0]


def test_acquire_retries_when_the_lease_changes_between_read_and_write(
    device_id: str, t0: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given host-a's expired lease (epoch 1), and host-b about to take it over from a read of it
    acquire(device_id, "host-a", t0)
    read = leases._get
    interleaved: list[leases.Lease | None] = []
    reads = []

    def read_then_host_c_takes_over(device: str, consistent: bool) -> LeaseModel | None:
        if device != device_id:  # a session host of the local stack reading its own devices
            return read(device, consistent)
        reads.append(device)
        snapshot = read(device, consistent)
        if len(reads) == 1:
            # Host-c takes over (epoch 2) right after host-b's first read, with a lease that
            # host-b's later clock already sees as expired: only the epoch guard notices.
            interleaved.append(leases.acquire(device_id, TENANT, "host-c", None, 1, now=t0 + TTL + 1))
        return snapshot

    monkeypatch.setattr(leases, "_get", read_then_host_c_takes_over)

    # When host-b's write lands after host-c's takeover
    taken = acquire(device_id, "host-b", t0 + 100)

    # Then host-b's stale write is refused, and its retry takes over from host-c with the next epoch
    assert interleaved[0] is not None
    assert interleaved[0].epoch == 2
    assert taken is not None
    assert (taken.owner_host_id, taken.epoch) == ("host-b", 3)
    assert len(reads) == 3  # host-b's stale read, host-c's read, host-b's re-read
