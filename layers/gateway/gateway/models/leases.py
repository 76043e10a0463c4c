"""Device leases: which session host runs a device's network session right now.

Written only through :mod:`gateway.leases`, whose conditional writes keep one owner per device.
"""

from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from gateway.models.base import GatewayModel, table_meta


class LeaseModel(GatewayModel):
    """One lease per device. ``expires_at`` is also the table's TTL attribute (epoch seconds).

    TTL deletion is lazy (it can lag by days), so an item whose ``expires_at`` has passed may
    still be read: readers must treat it as no lease at all.
    """

    Meta = table_meta("leases_table")

    device_id = UnicodeAttribute(hash_key=True)
    tenant_id = UnicodeAttribute()
    owner_host_id = UnicodeAttribute()
    # Where commands for this device go: the owner host's own queue.
    owner_queue_url = UnicodeAttribute(null=True)
    # Fencing token: incremented on every takeover by another host, unchanged on renewal.
    epoch = NumberAttribute()
    renewed_at = NumberAttribute()
    expires_at = NumberAttribute()
