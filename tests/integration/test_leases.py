"""Device leases and host heartbeats against the local stack's LeasesTable (moto).

Every call passes ``now`` explicitly, so expiry is decided by the test, not by the wall clock.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from gateway import leases
from gateway.models.leases import HostTenureModel, LeaseModel
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


def host(name: str) -> str:
    """A host id of this test only (heartbeats are per host id)."""
    return f"{name}-{uuid.uuid4().hex[:8]}"


def queue(host_id: str) -> str:
    return f"https://sqs.us-east-1.amazonaws.com/000000000000/{host_id}"


def begin(host_id: str, now: float, previous: leases.Tenure | None = None) -> leases.Tenure:
    tenure = leases.begin(host_id, TTL, previous, now=now)
    assert tenure is not None
    return tenure


def acquire(device_id: str, tenure: leases.Tenure, now: float) -> leases.Lease | None:
    return leases.acquire(device_id, TENANT, tenure, queue(tenure.host_id), now=now)


def test_first_acquire_wins_and_no_other_host_takes_it_while_the_owner_heartbeat_lives(
    device_id: str, t0: float
) -> None:
    # Given host a's tenure and its lease on the device
    a, b = begin(host("a"), t0), begin(host("b"), t0)
    first = acquire(device_id, a, t0)

    # When host b tries while a's heartbeat is live, even at its very last second
    second = acquire(device_id, b, t0 + 1)
    at_expiry = acquire(device_id, b, t0 + TTL)

    # Then a owns it from epoch 1, with its queue and tenure, and b gets nothing
    assert first == leases.Lease(device_id, TENANT, a.host_id, queue(a.host_id), 1, a.token)
    assert (second, at_expiry) == (None, None)
    assert leases.current(device_id, now=t0 + 1) == first


def test_one_heartbeat_renewal_keeps_every_lease_of_the_tenure_live(t0: float, stack: LocalStack) -> None:
    # Given host a holds three devices and renews its heartbeat once before it expires
    a, b = begin(host("a"), t0), begin(host("b"), t0)
    devices = [f"device-{uuid.uuid4().hex}" for _ in range(3)]
    held = [acquire(device, a, t0) for device in devices]
    renewed = leases.renew(a, TTL, now=t0 + TTL - 1)

    # When host b tries each device after the first expiry, within the renewed one
    taken = [acquire(device, b, t0 + TTL + 1) for device in devices]

    # Then the renewal moved the heartbeat (one item) and b is kept out of every device
    assert renewed == leases.Tenure(a.host_id, a.token, int(t0) + 2 * TTL - 1)
    assert taken == [None, None, None]
    assert [leases.current(device, now=t0 + TTL + 1) for device in devices] == held
    assert HostTenureModel.get(f"host#{a.host_id}", consistent_read=True).renewed_at == t0 + TTL - 1


def test_takeover_only_after_the_heartbeat_lapses_and_it_fences_the_old_owner(
    device_id: str, t0: float
) -> None:
    # Given host a's lease, and a's heartbeat that expired without renewal
    later = t0 + TTL + 1
    a, b = begin(host("a"), t0), begin(host("b"), later)
    old = acquire(device_id, a, t0)
    assert old is not None

    # When host b acquires it
    new = acquire(device_id, b, later)

    # Then b owns it with the next epoch
    assert new is not None
    assert (new.owner_host_id, new.owner_queue_url, new.epoch, new.tenure) == (
        b.host_id,
        queue(b.host_id),
        old.epoch + 1,
        b.token,
    )

    # When the old owner tries to renew its tenure and to release the lease
    renewed = leases.renew(a, TTL, now=later + 1)
    released = leases.release(old)

    # Then it learns its tenure is over, and the new owner's lease is untouched
    assert renewed is None
    assert released is False
    assert leases.current(device_id, now=later + 1) == new


def test_a_lapsed_host_cannot_renew_into_a_later_tenure_of_its_host_id(device_id: str, t0: float) -> None:
    # Given host a's tenure lapsed, and the same host id began a new tenure afterwards
    a_id = host("a")
    lapsed = begin(a_id, t0)
    acquire(device_id, lapsed, t0)
    successor = begin(a_id, t0 + TTL + 1, previous=lapsed)

    # When the lapsed tenure tries to renew (even with a clock that says it is still live)
    late = leases.renew(lapsed, TTL, now=t0 + 1)

    # Then it is refused, the successor renews, and the old tenure's lease is no longer live
    assert late is None
    assert successor.token != lapsed.token
    assert leases.renew(successor, TTL, now=t0 + TTL + 2) is not None
    assert leases.current(device_id, now=t0 + TTL + 2) is None


def test_a_second_process_of_a_host_id_waits_for_the_live_heartbeat_unless_it_replaces_its_own(
    t0: float, stack: LocalStack
) -> None:
    # Given host a's live tenure
    a_id = host("a")
    first = begin(a_id, t0)

    # When another tenure of the same host id begins while it lives, after it lapsed, and
    # when the process replaces its own tenure at once
    meanwhile = leases.begin(a_id, TTL, now=t0 + 1)
    after = leases.begin(a_id, TTL, now=t0 + TTL + 1)
    assert after is not None
    replaced = leases.begin(a_id, TTL, previous=after, now=t0 + TTL + 2)

    # Then the first is refused, the others succeed, each with a fresh token
    assert meanwhile is None
    assert replaced is not None
    assert len({first.token, after.token, replaced.token}) == 3
    assert leases.renew(after, TTL, now=t0 + TTL + 3) is None


def test_the_same_tenure_keeps_the_epoch_and_a_new_tenure_of_the_same_host_takes_over(
    device_id: str, t0: float
) -> None:
    # Given host a's lease taken over by host b (epoch 2)
    a, b_id = begin(host("a"), t0), host("b")
    acquire(device_id, a, t0)
    b = begin(b_id, t0 + TTL + 1)
    held = acquire(device_id, b, t0 + TTL + 1)
    assert held is not None
    assert held.epoch == 2

    # When b's tenure acquires it again, and after b's tenure lapsed its next tenure does
    again = acquire(device_id, b, t0 + TTL + 5)
    b_next = begin(b_id, t0 + 3 * TTL, previous=b)
    after_lapse = acquire(device_id, b_next, t0 + 3 * TTL)

    # Then the same tenure keeps the epoch, the new tenure is a takeover (the next epoch)
    assert again == held
    assert after_lapse is not None
    assert (after_lapse.epoch, after_lapse.tenure) == (3, b_next.token)


def test_release_frees_the_lease_for_another_host_and_is_fenced(device_id: str, t0: float) -> None:
    # Given host a's live lease
    a, b = begin(host("a"), t0), begin(host("b"), t0)
    lease = acquire(device_id, a, t0)
    assert lease is not None

    # When a releases it
    released = leases.release(lease)

    # Then it is gone, a second release is no error, and b acquires at once
    assert released is True
    assert leases.current(device_id, now=t0 + 1) is None
    assert leases.release(lease) is False
    taken = acquire(device_id, b, t0 + 1)
    assert taken is not None
    assert (taken.owner_host_id, taken.epoch) == (b.host_id, 1)

    # And a's stale lease (same device, same epoch number) cannot delete b's
    assert leases.release(lease) is False
    assert leases.current(device_id, now=t0 + 1) == taken


def test_ending_a_tenure_frees_its_leases_at_once(device_id: str, t0: float) -> None:
    # Given host a's lease, and a clean stop that ends a's tenure
    a, b = begin(host("a"), t0), begin(host("b"), t0)
    lease = acquire(device_id, a, t0)
    assert lease is not None
    ended = leases.end(a)

    # When b acquires the device right away
    taken = acquire(device_id, b, t0 + 1)

    # Then the lease was no longer live, b takes it over (next epoch), and ending again is no error
    assert ended is True
    assert taken is not None
    assert (taken.owner_host_id, taken.epoch) == (b.host_id, 2)
    assert leases.end(a) is False


def test_ending_a_replaced_tenure_leaves_the_successor_alone(t0: float, stack: LocalStack) -> None:
    # Given a tenure replaced by a later one of the same host id
    a_id = host("a")
    old = begin(a_id, t0)
    new = begin(a_id, t0 + 1, previous=old)

    # When the old one is ended
    ended = leases.end(old)

    # Then nothing is deleted: the successor still renews
    assert ended is False
    assert leases.renew(new, TTL, now=t0 + 2) is not None


def test_current_hides_leases_of_lapsed_tenures(device_id: str, t0: float) -> None:
    # Given a lease whose tenure's heartbeat expires at t0 + TTL; both items remain (TTL is lazy)
    a = begin(host("a"), t0)
    lease = acquire(device_id, a, t0)

    # When the owner is looked up before and after the heartbeat's expiry
    live = leases.current(device_id, now=t0 + TTL)
    stale = leases.current(device_id, now=t0 + TTL + 1)

    # Then it is seen while live and not once expired, though the item remains
    assert live == lease
    assert leases.current(device_id, consistent=False, now=t0 + TTL) == lease
    assert stale is None
    assert LeaseModel.get(device_id, consistent_read=True).owner_host_id == a.host_id
    assert leases.current(f"device-{uuid.uuid4().hex}") is None


def test_live_tenures_reads_one_heartbeat_per_host(t0: float, stack: LocalStack) -> None:
    # Given a live host, a host whose heartbeat expired, and one never seen
    live, lapsed = begin(host("live"), t0), leases.begin(host("lapsed"), 5, now=t0 - 10)
    assert lapsed is not None

    # When the takeover pass asks which are alive
    found = leases.live_tenures([live.host_id, lapsed.host_id, host("unknown"), live.host_id], now=t0)

    # Then only the live one is, with its tenure
    assert found == {live.host_id: live}
    assert leases.live_tenures([], now=t0) == {}


def test_ttl_must_be_positive(t0: float, stack: LocalStack) -> None:
    # Given / When / Then a zero TTL is refused before anything is written
    a_id = host("a")
    with pytest.raises(ValueError, match="ttl_seconds"):
        leases.begin(a_id, 0, now=t0)
    assert leases.live_tenures([a_id], now=t0) == {}


def test_a_lease_of_the_earlier_protocol_is_respected_until_its_own_expiry(device_id: str, t0: float) -> None:
    # Given a lease as the per-device protocol wrote it (no tenure, its own expiry)
    LeaseModel(
        device_id, tenant_id=TENANT, owner_host_id="old-host", epoch=4, expires_at=int(t0) + TTL
    ).save()
    b = begin(host("b"), t0)

    # When a new host tries before and after that expiry
    before = acquire(device_id, b, t0 + TTL)
    after = acquire(device_id, b, t0 + TTL + 1)

    # Then it waits for the expiry, then takes over with the next epoch
    assert before is None
    assert leases.current(device_id, now=t0 + TTL) is not None
    assert after is not None
    assert (after.owner_host_id, after.epoch) == (b.host_id, 5)


@pytest.mark.parametrize("expired_before", [False, True], ids=["free", "expired"])
@pytest.mark.parametrize("round_", range(5))
def test_concurrent_acquire_has_exactly_one_winner(
    stack: LocalStack, t0: float, round_: int, expired_before: bool
) -> None:
    # Given a device whose lease is free (or held by a host whose heartbeat expired)
    device_id = f"device-{uuid.uuid4().hex}"
    now = t0
    if expired_before:
        old = leases.begin(host("old"), TTL, now=t0 - 2 * TTL)
        assert old is not None
        assert acquire(device_id, old, t0 - 2 * TTL) is not None
    tenures = [begin(host(f"h{i}"), now) for i in range(8)]
    start = threading.Barrier(len(tenures))

    def contend(tenure: leases.Tenure) -> leases.Lease | None:
        start.wait()
        return acquire(device_id, tenure, now)

    # When 8 hosts acquire it at the same moment
    with ThreadPoolExecutor(max_workers=len(tenures)) as pool:
        results = list(pool.map(contend, tenures))

    # Then exactly one wins, and the table names that winner
    winners = [lease for lease in results if lease is not None]
    assert len(winners) == 1, results
    assert winners[0].epoch == (2 if expired_before else 1)
    assert leases.current(device_id, now=now) == winners[0]


def test_acquire_retries_when_the_lease_changes_between_read_and_write(
    device_id: str, t0: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given host a's lapsed lease (epoch 1), and host b about to take it over from a read of it
    a, b, c = begin(host("a"), t0), begin(host("b"), t0 + 100), begin(host("c"), t0 + TTL + 1)
    acquire(device_id, a, t0)
    read = leases._get
    interleaved: list[leases.Lease | None] = []
    reads = []

    def read_then_host_c_takes_over(device: str, consistent: bool) -> LeaseModel | None:
        if device != device_id:  # a session host of the local stack reading its own devices
            return read(device, consistent)
        reads.append(device)
        snapshot = read(device, consistent)
        if len(reads) == 1:
            # Host c takes over (epoch 2) right after host b's first read.
            interleaved.append(acquire(device_id, c, t0 + TTL + 1))
        return snapshot

    monkeypatch.setattr(leases, "_get", read_then_host_c_takes_over)

    # When host b's write lands after c's takeover (c's heartbeat lapsed by b's clock too)
    taken = acquire(device_id, b, t0 + 100)

    # Then b's stale write is refused, and its retry takes over from c with the next epoch
    assert interleaved[0] is not None
    assert interleaved[0].epoch == 2
    assert taken is not None
    assert (taken.owner_host_id, taken.epoch) == (b.host_id, 3)
    assert len(reads) == 3  # b's stale read, c's read, b's re-read


def test_a_heartbeat_renewed_after_the_acquirer_saw_it_lapsed_stops_the_takeover(
    device_id: str, t0: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given host a's lease, and host b whose clock sees a's heartbeat just expired
    a, b = begin(host("a"), t0), begin(host("b"), t0)
    held = acquire(device_id, a, t0)
    live_tenure = leases._live_tenure
    renewals: list[leases.Tenure | None] = []

    def read_then_a_renews(
        host_id: str, token: str, now: float, consistent: bool = True
    ) -> leases.Tenure | None:
        seen = live_tenure(host_id, token, now, consistent)
        if host_id == a.host_id and not renewals:
            # Host a, whose clock is a second behind, renews right after b's read.
            renewals.append(leases.renew(a, TTL, now=t0 + TTL))
        return seen

    monkeypatch.setattr(leases, "_live_tenure", read_then_a_renews)

    # When b takes the device over on the strength of its read
    taken = acquire(device_id, b, t0 + TTL + 1)

    # Then the transaction's check on a's heartbeat refuses it: a keeps the device
    assert renewals[0] is not None
    assert taken is None
    assert leases.current(device_id, now=t0 + TTL + 1) == held


def test_forgetting_a_deleted_devices_lease_removes_even_a_dead_hosts(device_id: str, t0: float) -> None:
    # Given a lease whose host died without releasing it (the TTL never clears a lease)
    dead = begin(host("dead"), t0)
    assert acquire(device_id, dead, t0) is not None

    # When the device is deleted, its lease is forgotten (twice: a repeated deletion)
    leases.forget(device_id)
    leases.forget(device_id)

    # Then no item of the device is left in the table
    assert list(LeaseModel.query(device_id)) == []
