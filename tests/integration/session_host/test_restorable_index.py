"""The sparse ``restorable`` index against the local stack's DevicesTable (moto).

Hosts restore exactly the devices wanted connected and logged in, and find them with a
Query of the index: a device that is off is not in it, so a restore pass never reads it.
Every host write that changes ``wants_connection`` or ``is_logged_in`` keeps the index
attribute in line.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from pynamodb.connection.base import Connection

from gateway.bus import DeviceSnapshot
from gateway.models import DeviceModel
from gateway.models.devices import RESTORE_SHARDS, restore_shard
from local_stack.stack import LocalStack
from session_host import backfill_restore_index, records
from session_host.network.port import NetworkEvent

QUEUE = "https://sqs.us-east-1.amazonaws.com/000000000000/test-host"
JID = "15550001111@s.whatsapp.net"
TENANT = "tenant-restorable"


@pytest.fixture
def new_device(stack: LocalStack) -> Iterator[Callable[..., str]]:
    """Device records of this test (saved as the API creates them, plus ``fields``), deleted after."""
    made: list[str] = []

    def make(**fields: Any) -> str:
        device_id = str(uuid.uuid4())
        now = datetime.now(UTC).isoformat()
        DeviceModel(
            TENANT, device_id, owner_user_id="u", name="d", created_at=now, updated_at=now, **fields
        ).save()
        made.append(device_id)
        return device_id

    yield make
    for device_id in made:
        DeviceModel(TENANT, device_id).delete()


def stored(device_id: str) -> DeviceModel:
    return DeviceModel.get(TENANT, device_id, consistent_read=True)


def in_index(device_id: str) -> bool:
    return (TENANT, device_id) in {(r.tenant_id, r.device_id) for r in records.restorable()}


def change(device_id: str, name: str, **data: Any) -> None:
    changes = records.event_changes(NetworkEvent(name, data))
    assert changes is not None
    assert records.apply_changes(TENANT, device_id, QUEUE, changes)


def test_the_rule_puts_only_wanted_and_logged_in_devices_in_a_shard() -> None:
    # Given / When / Then: a shard only for both flags, always the same one, within range
    assert restore_shard("d", wants_connection=True, is_logged_in=False) is None
    assert restore_shard("d", wants_connection=False, is_logged_in=True) is None
    shard = restore_shard("d", wants_connection=True, is_logged_in=True)
    assert shard == restore_shard("d", wants_connection=True, is_logged_in=True)
    assert shard is not None
    assert 0 <= int(shard) < RESTORE_SHARDS


def test_the_query_finds_exactly_the_wanted_logged_in_devices_and_reads_no_other(
    new_device: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given devices in every combination, brought there by the host's own writes
    never_connected = new_device()
    pairing = new_device()
    assert records.claim(TENANT, pairing, QUEUE, records.Claim.CONNECT)
    running = new_device()
    assert records.claim(TENANT, running, QUEUE, records.Claim.CONNECT)
    change(running, "pair.success", messaging_jid=JID)
    disconnected = new_device()
    assert records.claim(TENANT, disconnected, QUEUE, records.Claim.CONNECT)
    change(disconnected, "device.connected", messaging_jid=JID)
    assert records.stop_wanting(TENANT, disconnected, DeviceSnapshot("disconnected", False, True, JID))
    calls: list[tuple[str, dict[str, Any]]] = []
    dispatch = Connection.dispatch
    this_thread = threading.get_ident()  # the local stack's host runs in this process too

    def recording(self: Connection, operation: str, kwargs: dict[str, Any]) -> Any:
        if threading.get_ident() == this_thread:
            calls.append((operation, kwargs))
        return dispatch(self, operation, kwargs)

    monkeypatch.setattr(Connection, "dispatch", recording)

    # When a restore pass lists what to restore
    found = {r.device_id for r in records.restorable() if r.tenant_id == TENANT}

    # Then only the running device is there, read by Queries of the index alone: the others
    # carry no index key, so no read of the pass touches them
    assert found & {never_connected, pairing, running, disconnected} == {running}
    assert {(operation, kwargs.get("IndexName")) for operation, kwargs in calls} == {("Query", "restorable")}
    assert [stored(d).restore_shard for d in (never_connected, pairing, disconnected)] == [None] * 3


# Each step: a host write, then whether the device is in the index afterwards.
STEPS: list[tuple[str, Callable[[str], Any], bool]] = [
    ("connect, not paired", lambda d: records.claim(TENANT, d, QUEUE, records.Claim.CONNECT), False),
    ("qr shown", lambda d: change(d, "qr.generated", qr_code="2@x"), False),
    ("paired", lambda d: change(d, "pair.success", messaging_jid=JID), True),
    ("connected", lambda d: change(d, "device.connected", messaging_jid=JID), True),
    ("dropped, still logged in", lambda d: change(d, "device.disconnected", is_logged_in=True), True),
    (
        "handed back",
        lambda d: records.hand_back(TENANT, d, QUEUE, DeviceSnapshot("connected", True, True, JID)),
        True,
    ),
    ("restore claim", lambda d: records.claim(TENANT, d, QUEUE, records.Claim.RESTORE), True),
    ("dropped, unlinked", lambda d: change(d, "device.disconnected", is_logged_in=False), False),
    ("connected again", lambda d: change(d, "device.connected", messaging_jid=JID), True),
    ("disconnected by the user", lambda d: records.stop_wanting(TENANT, d, None), False),
    ("connect, already paired", lambda d: records.claim(TENANT, d, QUEUE, records.Claim.CONNECT), True),
    ("logged out", lambda d: change(d, "device.logged_out"), False),
    ("connect after logout", lambda d: records.claim(TENANT, d, QUEUE, records.Claim.CONNECT), False),
    ("paired again", lambda d: change(d, "pair.success", messaging_jid=JID), True),
    ("disconnect of an idle device", lambda d: records.stop_wanting_idle(TENANT, d), False),
]


def test_the_index_attribute_follows_every_write_of_the_two_flags(new_device: Callable[..., str]) -> None:
    # Given a device as the API creates it: off
    device_id = new_device()
    assert stored(device_id).restore_shard is None
    for step, write, expected in STEPS:
        # When the host writes the step
        write(device_id)

        # Then the device is in the index exactly while it is wanted connected and logged in
        record = stored(device_id)
        rule = restore_shard(
            device_id, wants_connection=bool(record.wants_connection), is_logged_in=bool(record.is_logged_in)
        )
        assert (record.restore_shard, record.restore_shard is not None) == (rule, expected), step
        assert in_index(device_id) is expected, step


def test_a_restore_claim_indexes_a_device_written_before_the_index(new_device: Callable[..., str]) -> None:
    # Given a wanted, logged-in device from before the index: no restore_shard
    device_id = new_device(wants_connection=True, is_logged_in=True, host_queue_url=QUEUE)
    assert not in_index(device_id)

    # When a host claims it for a restore (after a backfill found it, see docs)
    assert records.claim(TENANT, device_id, QUEUE, records.Claim.RESTORE)

    # Then it is in the index from now on
    assert in_index(device_id)


def test_a_late_correction_does_not_undo_a_newer_write(new_device: Callable[..., str]) -> None:
    # Given a device no longer wanted, and a host that saw it wanted and logged in a moment ago
    device_id = new_device(wants_connection=False, is_logged_in=True)
    seen = DeviceModel(TENANT, device_id, wants_connection=True, is_logged_in=True)

    # When that host brings the index attribute in line with what it saw
    records._follow_restore_rule(seen)  # the race guard itself

    # Then the stored device stays out of the index
    assert stored(device_id).restore_shard is None
    assert not in_index(device_id)


def test_the_backfill_indexes_devices_written_before_the_index_and_only_them(
    new_device: Callable[..., str],
) -> None:
    # Given a wanted, logged-in device and an off one, both written before the index
    legacy = new_device(wants_connection=True, is_logged_in=True, host_queue_url=QUEUE)
    off = new_device(wants_connection=False, is_logged_in=True)

    # When the one-off backfill runs, twice
    backfill_restore_index.backfill()
    again = backfill_restore_index.backfill()

    # Then the wanted one is in the index, the off one is not, and the second run did nothing
    assert in_index(legacy)
    assert not in_index(off)
    assert stored(off).restore_shard is None
    assert again == 0
