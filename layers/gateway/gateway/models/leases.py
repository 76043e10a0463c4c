"""Device leases and host heartbeats: which session host runs a device's network session now.

Both kinds of item live in the LeasesTable, keyed by ``device_id``: a device's lease under its
device id, a host's heartbeat under ``host#<host_id>`` (:data:`HOST_KEY_PREFIX`). Written only
through :mod:`gateway.leases`, whose conditional writes keep one owner per device.
"""

from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from gateway.models.base import GatewayModel, table_meta

HOST_KEY_PREFIX = "host#"
"""Heartbeat keys start with this; device ids never do (they are UUIDs)."""


class LeaseModel(GatewayModel):
    """One lease per device, naming its owner host's tenure. It carries no expiry of its own:
    it is live while that tenure's heartbeat (:class:`HostTenureModel`) is, so the item stays
    until it is released or taken over, and the table's TTL never deletes it.

    ``expires_at`` is only on leases written by the earlier protocol (renewed per device, no
    ``tenure``): such a lease is live until that time, so hosts of both versions can run side
    by side during a deployment.
    """

    Meta = table_meta("leases_table")

    device_id = UnicodeAttribute(hash_key=True)
    tenant_id = UnicodeAttribute()
    owner_host_id = UnicodeAttribute()
    # Where commands for this device go: the owner host's own queue.
    owner_queue_url = UnicodeAttribute(null=True)
    # Fencing token: incremented whenever another tenure takes the device, kept otherwise.
    epoch = NumberAttribute()
    # The owner's tenure token: the lease is live while the owner's heartbeat carries it.
    tenure = UnicodeAttribute(null=True)
    acquired_at = NumberAttribute(null=True)
    expires_at = NumberAttribute(null=True)


class HostTenureModel(GatewayModel):
    """One heartbeat per session host (key ``host#<host_id>``): the tenure ``token`` of the
    host's current process lifetime, live until ``expires_at``, which is also the table's TTL
    attribute (epoch seconds).

    TTL deletion is lazy (it can lag by days), so an item whose ``expires_at`` has passed may
    still be read: readers must treat it as no heartbeat at all.
    """

    Meta = table_meta("leases_table")

    key = UnicodeAttribute(hash_key=True, attr_name="device_id")
    host_id = UnicodeAttribute()
    token = UnicodeAttribute()
    renewed_at = NumberAttribute()
    expires_at = NumberAttribute()
