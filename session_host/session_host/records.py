"""The host's writes to device records.

Every write is a conditional update, so a device deleted meanwhile is never re-created.
Writes driven by a session's events are also conditional on the record still naming this
host's queue (``host_queue_url``): once another host took the device over and claimed the
record, a late write of the old host fails instead of overwriting the new state.

Every write also keeps ``restore_shard`` (the key of the sparse ``restorable`` index) in
line with ``wants_connection`` and ``is_logged_in``, by the rule of
:func:`gateway.models.devices.restore_shard`: in the same update when the write decides both
(a field set to False, or a restore claim that requires both True), else by a second,
conditional update once the record as written shows the attribute out of line (see
:func:`_follow_restore_rule`). This module is the only writer of the two fields.

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
from gateway.models.devices import RESTORE_SHARDS, restore_shard
from gateway.timestamps import iso_utc
from gateway.webhooks.catalog import EventName
from session_host.network.port import NetworkEvent, SessionState


class Claim(Enum):
    """Why a host claims a device record for itself."""

    CONNECT = "connect"  # a user asked: the device is wanted connected from now on
    RESTORE = "restore"  # a takeover: only while the device is still wanted and logged in
    VISIT = "visit"  # a short tenure (logout, delete of a device no host ran): wants unchanged


def claim(tenant_id: str, device_id: str, queue_url: str, how: Claim) -> bool:
    """Name this host's queue on the record; False when the record is gone (or, for a
    restore, no longer wanted connected and logged in)."""
    fields: dict[str, Any] = {"host_queue_url": queue_url}
    condition = DeviceModel.device_id.exists()
    known: dict[str, bool] = {}
    if how is Claim.CONNECT:
        fields["wants_connection"] = True
    elif how is Claim.RESTORE:
        condition &= (DeviceModel.wants_connection == True) & (DeviceModel.is_logged_in == True)  # noqa: E712
        known = {"wants_connection": True, "is_logged_in": True}
    return _update(tenant_id, device_id, fields, condition, known) is not None


def apply_changes(tenant_id: str, device_id: str, queue_url: str, changes: Mapping[str, Any]) -> bool:
    """Write an event's state changes while the record still names this host; else False."""
    fields = {**changes, "updated_at": iso_utc()}
    return _update(tenant_id, device_id, fields, DeviceModel.host_queue_url == queue_url) is not None


def hand_back(tenant_id: str, device_id: str, queue_url: str, snapshot: DeviceSnapshot | None) -> bool:
    """This host stops running the device but it stays wanted (clean stop): clear the queue
    and record the session's last state, so another host restores it."""
    fields: dict[str, Any] = {"host_queue_url": None, "reconnect_at": None}
    if snapshot is not None:
        fields |= asdict(snapshot) | {"updated_at": iso_utc()}
    return _update(tenant_id, device_id, fields, DeviceModel.host_queue_url == queue_url) is not None


def stop_wanting(tenant_id: str, device_id: str, snapshot: DeviceSnapshot | None) -> DeviceModel | None:
    """Disconnect, logout, delete: no host runs the device and none restores it. Written by
    the host holding the device's lease. Returns the record as written, None if it is gone."""
    fields: dict[str, Any] = {"host_queue_url": None, "wants_connection": False, "reconnect_at": None}
    if snapshot is not None:
        fields |= asdict(snapshot) | {"updated_at": iso_utc()}
    return _update(tenant_id, device_id, fields, DeviceModel.device_id.exists())


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


class DeviceSettings(NamedTuple):
    """The settings the API writes (PATCH /devices/{id}) that the host applies: the proxy at
    each connect, the call rejection at each call offer."""

    proxy_url: str | None
    reject_calls: bool
    reject_calls_message: str | None


SETTINGS_ATTRIBUTES = ("proxy_url", "reject_calls", "reject_calls_message")


def settings(tenant_id: str, device_id: str) -> DeviceSettings | None:
    """The device's settings as the API last wrote them; None when the device is gone."""
    try:
        record = DeviceModel.get(
            tenant_id, device_id, consistent_read=True, attributes_to_get=list(SETTINGS_ATTRIBUTES)
        )
    except DoesNotExist:
        return None
    return DeviceSettings(record.proxy_url, bool(record.reject_calls), record.reject_calls_message)


class Restorable(NamedTuple):
    """A device wanted connected and logged in, and the queue of the host that claimed it last
    (None once handed back): the takeover pass skips the devices of live hosts by it."""

    tenant_id: str
    device_id: str
    host_queue_url: str | None


def restorable() -> list[Restorable]:
    """Every device wanted connected and logged in.

    One Query per shard of the sparse ``restorable`` index (keys and ``host_queue_url``): its
    cost follows the devices wanted connected, not the size of the table. The index is
    eventually consistent: a device that just entered it may be found one pass later, one that
    just left it is still refused by the restore claim's condition on the record, and a
    ``host_queue_url`` a moment old only decides whether :func:`leases.acquire` is tried.
    """
    return [
        Restorable(record.tenant_id, record.device_id, record.host_queue_url)
        for shard in range(RESTORE_SHARDS)
        for record in DeviceModel.restorable.query(str(shard))
    ]


def index_if_restorable(tenant_id: str, device_id: str) -> bool:
    """Put a wanted, logged-in record written before the ``restorable`` index into it; False
    when the record is not (or no longer) such a record, or is indexed already."""
    shard = restore_shard(device_id, wants_connection=True, is_logged_in=True)
    assert shard is not None  # wanted and logged in: always in a shard
    condition = (
        (DeviceModel.wants_connection == True)  # noqa: E712
        & (DeviceModel.is_logged_in == True)  # noqa: E712
        & DeviceModel.restore_shard.does_not_exist()
    )
    return _apply(DeviceModel(tenant_id, device_id), [DeviceModel.restore_shard.set(shard)], condition)


_NO_ERROR = {"last_error_code": None, "last_error_message": None, "last_error_at": None, "reconnect_at": None}


def _last_error(event: NetworkEvent, code: str, message: str) -> dict[str, Any]:
    return {
        "last_error_code": code,
        "last_error_message": message,
        "last_error_at": iso_utc(event.occurred_at),
        "reconnect_at": event.data.get("reconnect_at"),
    }


def event_changes(event: NetworkEvent) -> dict[str, Any] | None:
    """The record fields an event changes, or None for events that change none."""
    data = event.data
    jid = data.get("messaging_jid")
    if event.name == EventName.DEVICE_CONNECTED:
        changes: dict[str, Any] = {
            "status": SessionState.CONNECTED.value,
            "is_connected": True,
            "is_logged_in": True,
            **_NO_ERROR,
        }
        return changes | ({"messaging_jid": jid} if jid else {})
    if event.name == EventName.CONNECTION_FAILURE:
        return _last_error(event, str(data.get("reason")), str(data.get("message") or data.get("reason")))
    if event.name == EventName.CONNECTION_TEMPORARY_BAN:
        return _last_error(
            event, "temporary_ban", f"temporarily banned ({data.get('code')}) until {data.get('expires_at')}"
        )
    if event.name == EventName.CONNECTION_MANUAL_RECONNECT:
        return {"reconnect_at": None}
    if event.name == EventName.DEVICE_DISCONNECTED:
        logged_in = bool(data.get("is_logged_in", True))
        status = SessionState.DISCONNECTED if logged_in else SessionState.NOT_READY
        return {"status": status.value, "is_connected": False, "is_logged_in": logged_in}
    if event.name == EventName.DEVICE_LOGGED_OUT:
        return {
            "status": SessionState.LOGGED_OUT.value,
            "is_connected": False,
            "is_logged_in": False,
            "wants_connection": False,
            "messaging_jid": None,
        }
    if event.name == EventName.QR_GENERATED:
        return {"status": SessionState.PAIRING.value, "is_connected": False, "is_logged_in": False}
    if event.name == EventName.PAIR_SUCCESS:  # the sending policy's warm-up counts from here
        paired = {"is_logged_in": True, "paired_at": iso_utc(event.occurred_at)}
        return paired | ({"messaging_jid": jid} if jid else {})
    if event.name == EventName.CONNECTION_PAIR_ERROR:
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


def _update(
    tenant_id: str,
    device_id: str,
    fields: Mapping[str, Any],
    condition: Condition,
    known: Mapping[str, bool] | None = None,
) -> DeviceModel | None:
    """Write ``fields`` under ``condition``; the record as written, None if the condition failed.

    ``known``: values of ``wants_connection`` / ``is_logged_in`` the condition guarantees.
    """
    state = {**(known or {}), **fields}
    actions = _set_fields(fields) + _restore_shard_actions(
        device_id, state.get("wants_connection"), state.get("is_logged_in")
    )
    record = DeviceModel(tenant_id, device_id)
    if not _apply(record, actions, condition):
        return None
    _follow_restore_rule(record)
    return record


def _restore_shard_actions(device_id: str, wants: bool | None, logged_in: bool | None) -> list[Any]:
    """The ``restore_shard`` action of a write that decides it; none when it depends on a
    field the write leaves as stored (:func:`_follow_restore_rule` checks it after)."""
    if wants is False or logged_in is False:
        return [DeviceModel.restore_shard.remove()]
    shard = restore_shard(device_id, wants_connection=bool(wants), is_logged_in=bool(logged_in))
    return [] if shard is None else [DeviceModel.restore_shard.set(shard)]


def _follow_restore_rule(record: DeviceModel) -> None:
    """Bring ``restore_shard`` in line with the record as just written (updates return it whole).

    Conditional on the two fields being still as seen: a write that changed them meanwhile
    ran this check itself, on the newer state, so the last writer's view wins.
    """
    wants, logged_in = bool(record.wants_connection), bool(record.is_logged_in)
    shard = restore_shard(record.device_id, wants_connection=wants, is_logged_in=logged_in)
    if shard == record.restore_shard:
        return
    action = DeviceModel.restore_shard.remove() if shard is None else DeviceModel.restore_shard.set(shard)
    unchanged = (DeviceModel.wants_connection == wants) & (DeviceModel.is_logged_in == logged_in)
    _apply(record, [action], unchanged)


def _apply(record: DeviceModel, actions: list[Any], condition: Condition) -> bool:
    try:
        record.update(actions=actions, condition=condition)
    except UpdateError as error:
        if error.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True
