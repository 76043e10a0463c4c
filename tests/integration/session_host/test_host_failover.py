"""Several session hosts: forwarding, one host per device, restore, takeover, lost leases."""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import EndpointConnectionError
from host_harness import LEASE_TTL, Harness, wait_until

from gateway import leases
from gateway.bus import CommandName, queues
from gateway.failures.kinds import ErrorKind
from gateway.models import HostTenureModel, LeaseModel
from session_host import recycling
from session_host.network.port import EventSink, NetworkEvent
from session_host.network.simulated import SimulatedNetwork, SimulatedPort, SimulatedSession


class RecordingPort(SimulatedPort):
    """A simulated port that keeps the sink of every session it opens."""

    def __init__(self, network: SimulatedNetwork) -> None:
        super().__init__(network)
        self.sinks: dict[str, EventSink] = {}

    def open_session(self, device_id: str, *, data_dir: Path, sink: EventSink) -> SimulatedSession:
        self.sinks[device_id] = sink
        return super().open_session(device_id, data_dir=data_dir, sink=sink)


def test_a_command_reaching_another_host_is_forwarded_to_the_owner(harness: Harness) -> None:
    # Given host A runs a pairing device, and host B starts afterwards
    owner = harness.hosts.start()
    device = harness.new_device()
    assert harness.send(CommandName.CONNECT, device).ok
    other = harness.hosts.start()

    # When the device's QR code is asked through host B's own queue
    reply = harness.send_to(other.host.queue_url, CommandName.QR, device)

    # Then B forwards it and A answers from the session it runs
    assert reply.ok
    assert (
        reply.result["qr_code"]
        == harness.events.wait_for(device.device_id, "qr.generated")["envelope"]["data"]["qr_code"]
    )
    assert owner.host.owned_devices() == {device.device_id}
    assert other.host.owned_devices() == frozenset()


def test_a_second_host_never_takes_a_device_another_live_host_runs(harness: Harness) -> None:
    # Given host A runs a connected device
    owner = harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)

    # When host B runs several restore passes and is asked to connect the device
    other = harness.hosts.start()
    wait_until(lambda: other.host.restore_passes() >= 3, timeout=LEASE_TTL * 3, what="three restore passes")
    reply = harness.send_to(other.host.queue_url, CommandName.CONNECT, device)

    # Then the connect is forwarded to A (a no-op there) and the device never ran twice
    assert reply.ok
    assert reply.device is not None
    assert reply.device.status == "connected"
    assert owner.host.owned_devices() == {device.device_id}
    assert other.host.owned_devices() == frozenset()
    assert harness.network.max_simultaneous_connections(device.device_id) == 1
    assert leases.current(device.device_id).owner_host_id == owner.host.host_id


def test_a_clean_stop_hands_devices_back_and_a_new_host_restores_them_without_pairing(
    harness: Harness,
) -> None:
    # Given host A runs a connected device
    first = harness.hosts.start()
    device = harness.new_device()
    jid = harness.pair(device)
    first_queue = first.host.queue_url

    # When A stops cleanly
    harness.hosts.stop(first)

    # Then the device is handed back: still wanted and logged in, shown disconnected, no lease
    saved = device.record()
    assert (saved.status, saved.is_connected, saved.is_logged_in, saved.wants_connection) == (
        "disconnected",
        False,
        True,
        True,
    )
    assert saved.host_queue_url is None
    assert leases.current(device.device_id) is None
    assert harness.network.connection_count(device.device_id) == 0
    assert first_queue not in queues.sqs_client().list_queues(QueueNamePrefix="test-dq-h-").get(
        "QueueUrls", []
    )
    assert not first.host.settings.liveness_file.exists()

    # When another host starts
    second = harness.hosts.start()

    # Then it restores the device, connected as the same account, without a new QR code
    wait_until(lambda: second.host.owned_devices() == {device.device_id}, what="restored device")
    wait_until(lambda: device.record().status == "connected", what="connected record")
    assert device.record().messaging_jid == jid
    assert device.record().host_queue_url == second.host.queue_url
    harness.events.wait_for(device.device_id, "device.connected", count=2)
    assert harness.events.names(device.device_id).count("qr.generated") == 1


def test_a_full_host_starts_no_more_sessions_and_leaves_restores_to_hosts_with_room(
    harness: Harness,
) -> None:
    # Given a host that may run one session, running one
    full = harness.hosts.start(max_sessions=1)
    running, other = harness.new_device(), harness.new_device()
    harness.pair(running)

    # When another device connects through it
    reply = harness.send(CommandName.CONNECT, other)

    # Then it is refused as full, with nothing started or claimed
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.HOST_FULL), reply
    assert full.host.owned_devices() == {running.device_id}
    assert other.record().host_queue_url is None

    # And when a second host of one session fills up with a device of its own
    first = harness.hosts.start(max_sessions=1)
    paired = harness.new_device()
    assert harness.send_to(first.host.queue_url, CommandName.CONNECT, paired).ok
    wait_until(lambda: harness.send(CommandName.QR, paired).ok, what="a QR code")
    harness.network.scan(paired.device_id, "4915100000077")
    wait_until(lambda: paired.record().status == "connected", what="connected record")

    # and the full first host stops cleanly, handing its device back, and a third one starts
    harness.hosts.stop(full)
    third = harness.hosts.start(max_sessions=1)

    # Then the handed-back device is restored by the host with room, never by the full one
    wait_until(lambda: third.host.owned_devices() == {running.device_id}, what="restored by the third")
    wait_until(lambda: running.record().status == "connected", what="connected record")
    assert first.host.owned_devices() == {paired.device_id}


def test_a_host_near_its_memory_budget_starts_no_more_sessions(harness: Harness) -> None:
    # Given a host process whose memory is already past 80 % of its budget
    near = recycling.resident_mb() / 0.9
    host = harness.hosts.start(memory_budget_mb=max(64.0, near))
    assert recycling.near_memory_budget(host.host.settings.memory_budget_mb)

    # When a device connects through it / Then it is refused as full, nothing started
    device = harness.new_device()
    reply = harness.send(CommandName.CONNECT, device)
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.HOST_FULL), reply
    assert host.host.owned_devices() == frozenset()


def test_a_dead_host_devices_are_taken_over_once_their_leases_expire(harness: Harness) -> None:
    # Given host A runs a connected device, and host B runs beside it
    port = SimulatedPort(harness.network)
    dead = harness.hosts.start(port=port)
    device = harness.new_device()
    harness.pair(device)
    survivor = harness.hosts.start()

    # When A's process dies: nothing is released, its connections just vanish
    harness.hosts.kill(dead)
    port.crash()

    # Then B takes the device over after the lease expires and runs it connected
    wait_until(
        lambda: survivor.host.owned_devices() == {device.device_id}, timeout=LEASE_TTL * 4, what="takeover"
    )
    wait_until(lambda: device.record().host_queue_url == survivor.host.queue_url, what="record claimed")
    wait_until(lambda: device.record().status == "connected", what="connected record")
    assert harness.network.max_simultaneous_connections(device.device_id) == 1
    assert leases.current(device.device_id).owner_host_id == survivor.host.host_id


def test_a_lost_lease_closes_the_session_and_its_later_events_are_ignored(harness: Harness) -> None:
    # Given host A runs a connected device
    port = RecordingPort(harness.network)
    host = harness.hosts.start(port=port)
    device = harness.new_device()
    harness.pair(device)
    harness.events.wait_for(device.device_id, "device.connected")
    published = len(harness.events.of(device.device_id))

    # When A's heartbeat is seen lapsed (as after renewals lost in a partition) and another
    # host takes the device over (A has not noticed yet)
    held = leases.current(device.device_id)
    now = time.time()
    heartbeat = HostTenureModel.get(f"host#{host.host.host_id}", consistent_read=True)
    heartbeat.update(actions=[HostTenureModel.expires_at.set(int(now) - 1)])
    thief = leases.begin(f"thief-{uuid.uuid4().hex[:8]}", 60)
    assert thief is not None
    taken = leases.acquire(device.device_id, device.tenant_id, thief, None)
    assert taken is not None
    assert taken.epoch == held.epoch + 1

    # Then A's next renewal is refused and A closes the session at once, leaving the record
    # alone; its restore passes leave the device to the new owner
    wait_until(lambda: host.host.owned_devices() == frozenset(), timeout=LEASE_TTL * 2, what="session closed")
    assert harness.network.connection_count(device.device_id) == 0
    assert device.record().status == "connected"
    assert device.record().host_queue_url == host.host.queue_url

    # When that session reports one more event
    logged_out = NetworkEvent("device.logged_out", {"device_id": device.device_id, "status": "logged_out"})
    host.call(port.sinks[device.device_id](logged_out))

    # Then it is neither recorded nor published (a clean stop sends every envelope the host
    # took before it returns; the events queue, read to its end, holds none of it)
    assert device.record().status == "connected"
    harness.hosts.stop(host)
    wait_until(harness.events_read_to_the_end, what="the events queue read to its end")
    assert len(harness.events.of(device.device_id)) == published


def test_a_pairing_window_that_closes_stops_the_session(harness: Harness) -> None:
    # Given a network whose QR codes expire quickly
    network = SimulatedNetwork(qr_lifetimes=(0.3,))
    host = harness.hosts.start(port=SimulatedPort(network))
    device = harness.new_device()

    # When the device connects and nobody scans its QR code
    assert harness.send(CommandName.CONNECT, device).ok
    harness.events.wait_for(device.device_id, "connection.pair_error")

    # Then the session stops, the lease is released and the device is not ready
    wait_until(lambda: host.host.owned_devices() == frozenset(), what="session stopped")
    wait_until(lambda: leases.current(device.device_id) is None, what="lease released")
    saved = device.record()
    assert (saved.status, saved.wants_connection, saved.host_queue_url) == ("not_ready", False, None)


def test_a_phone_unlinking_the_device_ends_its_session(harness: Harness) -> None:
    # Given a connected device
    host = harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)

    # When the phone removes the linked device
    harness.network.unlink(device.device_id)

    # Then the device is logged out, not wanted any more, and no host runs it
    harness.events.wait_for(device.device_id, "device.logged_out")
    wait_until(lambda: host.host.owned_devices() == frozenset(), what="session ended")
    wait_until(lambda: leases.current(device.device_id) is None, what="lease released")
    saved = device.record()
    assert (saved.status, saved.is_logged_in, saved.wants_connection) == ("logged_out", False, False)


def test_a_dropped_connection_is_recorded_and_restored(harness: Harness) -> None:
    # Given a connected device
    harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)

    # When the network drops its connection
    harness.network.drop(device.device_id)

    # Then the record shows the loss, and the reconnection that follows
    disconnected = harness.events.wait_for(device.device_id, "device.disconnected")
    assert disconnected["envelope"]["data"]["status"] == "disconnected"
    harness.events.wait_for(device.device_id, "device.connected", count=2)
    wait_until(lambda: device.record().status == "connected", what="reconnected record")


def failing_heartbeats(monkeypatch: pytest.MonkeyPatch, host_id: str) -> threading.Event:
    """Make ``host_id``'s heartbeat writes (renewals, new tenures) fail as in a network
    partition until the returned event is set; other hosts write theirs as usual."""
    renew, begin = leases.renew, leases.begin
    healed = threading.Event()

    def check(host: str) -> None:
        if host == host_id and not healed.is_set():
            raise EndpointConnectionError(endpoint_url="http://dynamodb.partitioned")

    def partitioned_renew(tenure: leases.Tenure, *args: Any, **kwargs: Any) -> Any:
        check(tenure.host_id)
        return renew(tenure, *args, **kwargs)

    def partitioned_begin(host: str, *args: Any, **kwargs: Any) -> Any:
        check(host)
        return begin(host, *args, **kwargs)

    monkeypatch.setattr(leases, "renew", partitioned_renew)
    monkeypatch.setattr(leases, "begin", partitioned_begin)
    return healed


def test_a_host_that_cannot_renew_its_heartbeat_closes_its_sessions_before_another_takes_over(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given host A runs a connected device, and host B runs beside it
    cut_off = harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)
    survivor = harness.hosts.start()

    # When A's heartbeat writes fail from now on
    failing_heartbeats(monkeypatch, cut_off.host.host_id)

    # Then A closes the session itself, B takes the device over once A's heartbeat expired,
    # and the device never ran on both at once
    wait_until(lambda: cut_off.host.owned_devices() == frozenset(), timeout=LEASE_TTL * 2, what="closed")
    wait_until(
        lambda: survivor.host.owned_devices() == {device.device_id}, timeout=LEASE_TTL * 4, what="takeover"
    )
    wait_until(lambda: device.record().status == "connected", what="connected record")
    assert harness.network.max_simultaneous_connections(device.device_id) == 1
    assert leases.current(device.device_id).owner_host_id == survivor.host.host_id


def test_after_a_lapse_the_host_begins_a_new_tenure_and_restores_its_devices(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a host alone, running a connected device
    host = harness.hosts.start()
    device = harness.new_device()
    harness.pair(device)
    held = leases.current(device.device_id)

    # When its heartbeat writes fail long enough for the heartbeat to lapse, then work again
    healed = failing_heartbeats(monkeypatch, host.host.host_id)
    wait_until(lambda: host.host.owned_devices() == frozenset(), timeout=LEASE_TTL * 2, what="closed")
    healed.set()

    # Then the host runs the device again, under a new tenure
    wait_until(
        lambda: host.host.owned_devices() == {device.device_id}, timeout=LEASE_TTL * 4, what="restored"
    )
    wait_until(lambda: device.record().status == "connected", what="connected record")
    again = leases.current(device.device_id)
    assert again.owner_host_id == host.host.host_id
    assert again.tenure != held.tenure
    assert harness.network.max_simultaneous_connections(device.device_id) == 1


def test_steady_hosts_touch_no_device_lease_only_their_heartbeats(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given host A runs three connected devices, and host B runs beside it
    owner = harness.hosts.start()
    devices = [harness.new_device() for _ in range(3)]
    for device in devices:
        harness.pair(device)
    other = harness.hosts.start()
    wait_until(lambda: other.host.restore_passes() >= 1, timeout=LEASE_TTL * 2, what="a restore pass")

    # When both keep running for three more restore passes of B (and heartbeat rounds)
    calls: list[str] = []
    # Only calls about this test's devices and hosts count: the suite's local stack may be
    # running in the same process, its own hosts reading and writing their own leases.
    ours = {device.device_id for device in devices} | {owner.host.host_id, other.host.host_id}

    def concerns_ours(args: tuple[Any, ...]) -> bool:
        first = args[0] if args else None  # a key (get), or the item itself (save, update)
        key = (
            first
            if isinstance(first, str)
            else getattr(first, "device_id", None) or getattr(first, "key", "")
        )
        return any(name in str(key) for name in ours)

    for model, method in [(LeaseModel, "get"), (LeaseModel, "save"), (HostTenureModel, "update")]:
        original = getattr(model, method)

        def counted(
            *args: Any, _name: str = f"{model.__name__}.{method}", _call: Any = original, **kwargs: Any
        ) -> Any:
            if concerns_ours(args):
                calls.append(_name)
            return _call(*args, **kwargs)

        monkeypatch.setattr(model, method, counted)
    passes = other.host.restore_passes()
    wait_until(lambda: other.host.restore_passes() >= passes + 3, timeout=LEASE_TTL * 3, what="three passes")

    # Then no device lease was read or written: only the hosts' heartbeats were renewed
    assert set(calls) == {"HostTenureModel.update"}
    assert owner.host.owned_devices() == {device.device_id for device in devices}
