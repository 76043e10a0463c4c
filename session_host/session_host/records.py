"""The host's writes to device records.

Every write is a conditional update, so a device deleted meanwhile is never re-created.
Writes driven by a session's events are also conditional on the record still naming this
host's queue (``host_queue_url``): once another host took the device over and claimed the
record, a late write of the old host fails instead of overwriting the new state.

These functions block (PynamoDB); the host runs them on its AWS threads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from enum import Enum
from typing import Any, NamedTuple

from pynamodb.exceptions import DoesNotExist, UpdateError
from pynamodb.expressions.condition import Condition

from gateway.bus import DeviceSnapshot
from gateway.models import DeviceModel
from gateway.timestamps import iso_utc
from session_host.network.port import NetworkEvent, SessionState


class Claim(Enum):
    """Why a host claims a device record for itself."""

    CONNECT = "connect"  # a user asked: the device is wanted connected from now on
    RESTORE = "restore"  # a takeover: only while the device is still wanted and logged in
    VISIT = "visit"  # a short tenure (logout, delete of a device no host ran): wants unchanged


def claim(tenant_id: str, device_id: str, queue_url: str, how: Claim) -> bool:
    """Name this host's queue on the record; False when the record is gone (or, for a
    restore, no longer wanted connected and logged in)."""
    actions = [DeviceModel.host_queue_url.set(queue_url)]
    condition = DeviceModel.device_id.exists()
    if how is Claim.CONNECT:
        actions.append(DeviceModel.wants_connection.set(True))
    elif how is Claim.RESTORE:
        condition &= (DeviceModel.wants_connection == True) & (DeviceModel.is_logged_in == True)  # noqa: E712
    return _update(tenant_id, device_id, actions, condition) is not None


def apply_changes(tenant_id: str, device_id: str, queue_url: str, changes: Mapping[str, Any]) -> bool:
    """Write an event's state changes while the record still names this host; else False."""
    actions = _set_fields({**changes, "updated_at": iso_utc()})
    return _update(tenant_id, device_id, actions, DeviceModel.host_queue_url == queue_url) is not None


def hand_back(tenant_id: str, device_id: str, queue_url: str, snapshot: DeviceSnapshot | None) -> bool:
    """This host stops running the device but it stays wanted (clean stop): clear the queue
    and record the session's last state, so another host restores it."""
    fields: dict[str, Any] = {"host_queue_url": None}
    if snapshot is not None:
        fields |= asdict(snapshot) | {"updated_at": iso_utc()}
    return (
        _update(tenant_id, device_id, _set_fields(fields), DeviceModel.host_queue_url == queue_url)
        is not None
    )


def stop_wanting(tenant_id: str, device_id: str, snapshot: DeviceSnapshot | None) -> DeviceModel | None:
    """Disconnect, logout, delete: no host runs the device and none restores it. Written by
    the host holding the device's lease. Returns the record as written, None if it is gone."""
    fields: dict[str, Any] = {"host_queue_url": None, "wants_connection": False}
    if snapshot is not None:
        fields |= asdict(snapshot) | {"updated_at": iso_utc()}
    return _update(tenant_id, device_id, _set_fields(fields), DeviceModel.device_id.exists())


def stop_wanting_idle(tenant_id: str, device_id: str) -> DeviceModel | None:
    """Disconnect of a device no host runs: as :func:`stop_wanting`, and a record still
    showing a live connection (its host died) now shows none."""
    try:
        record = DeviceModel.get(tenant_id, device_id, consistent_read=True)
    except DoesNotExist:
        return None
    logged_in = bool(record.is_logged_in)
    status = record.status
    if status not in (SessionState.LOGGED_OUT, SessionState.NOT_READY):
        status = SessionState.DISCONNECTED if logged_in else SessionState.NOT_READY
    snapshot = DeviceSnapshot(str(status), False, logged_in, record.messaging_jid)
    return stop_wanting(tenant_id, device_id, snapshot)


class Restorable(NamedTuple):
    """A device wanted connected and logged in, and the queue of the host that claimed it last
    (None once handed back): the takeover pass skips the devices of live hosts by it."""

    tenant_id: str
    device_id: str
    host_queue_url: str | None


def restorable() -> list[Restorable]:
    """Every device wanted connected and logged in.

    A filtered Scan: it reads the whole devices table (the filter does not reduce the read
    capacity consumed), once per takeover interval per host. Fine for thousands of devices;
    beyond that a sparse index on ``wants_connection`` would make this a Query.
    """
    condition = (DeviceModel.wants_connection == True) & (DeviceModel.is_logged_in == True)  # noqa: E712
    return [
        Restorable(record.tenant_id, record.device_id, record.host_queue_url)
        for record in DeviceModel.scan(
            condition, attributes_to_get=["tenant_id", "device_id", "host_queue_url"]
        )
    ]


def event_changes(event: NetworkEvent) -> dict[str, Any] | None:
    """The record fields an event changes, or None for events that change none."""
    data = event.data
    jid = data.get("messaging_jid")
    if event.name == "device.connected":
        changes: dict[str, Any] = {
            "status": SessionState.CONNECTED.value,
            "is_connected": True,
            "is_logged_in": True,
        }
        return changes | ({"messaging_jid": jid} if jid else {})
    if event.name == "device.disconnected":
        logged_in = bool(data.get("is_logged_in", True))
        status = SessionState.DISCONNECTED if logged_in else SessionState.NOT_READY
        return {"status": status.value, "is_connected": False, "is_logged_in": logged_in}
    if event.name == "device.logged_out":
        return {
            "status": SessionState.LOGGED_OUT.value,
            "is_connected": False,
            "is_logged_in": False,
            "wants_connection": False,
            "messaging_jid": None,
        }
    if event.name == "qr.generated":
        return {"status": SessionState.PAIRING.value, "is_connected": False, "is_logged_in": False}
    if event.name == "pair.success":
        return {"is_logged_in": True} | ({"messaging_jid": jid} if jid else {})
    if event.name == "connection.pair_error":
        return {"status": SessionState.NOT_READY.value, "is_connected": False}
    return None


def record_snapshot(record: DeviceModel) -> DeviceSnapshot:
    return DeviceSnapshot(
        status=record.status,
        is_connected=bool(record.is_connected),
        is_logged_in=bool(record.is_logged_in),
        messaging_jid=record.messaging_jid,
    )


def _set_fields(fields: Mapping[str, Any]) -> list[Any]:
    """Update actions; a None value removes the attribute (how PynamoDB stores a null)."""
    actions = []
    for name, value in fields.items():
        attribute = getattr(DeviceModel, name)
        actions.append(attribute.remove() if value is None else attribute.set(value))
    return actions


def _update(tenant_id: str, device_id: str, actions: list[Any], condition: Condition) -> DeviceModel | None:
    record = DeviceModel(tenant_id, device_id)
    try:
        record.update(actions=actions, condition=condition)
    except UpdateError as error:
        if error.cause_response_code == "ConditionalCheckFailedException":
            return None
        raise
    return record
