"""One-off migration: index the devices written before the ``restorable`` index existed.

    python -m session_host.backfill_restore_index

Run once with the host's environment after deploying the index (docs/session-host.md, "The
restorable index"). One filtered Scan of the devices table finds the wanted, logged-in items
without a ``restore_shard``; each is then set by :func:`records.index_if_restorable`,
conditional on the flags being unchanged, so it is safe while hosts run and when repeated.
"""

from __future__ import annotations

from gateway.models import DeviceModel
from gateway.observability import logger
from session_host import records


def backfill() -> int:
    """Index every unindexed wanted, logged-in device; returns how many were indexed."""
    condition = (
        (DeviceModel.wants_connection == True)  # noqa: E712
        & (DeviceModel.is_logged_in == True)  # noqa: E712
        & DeviceModel.restore_shard.does_not_exist()
    )
    found = DeviceModel.scan(condition, attributes_to_get=["tenant_id", "device_id"])
    return sum(records.index_if_restorable(record.tenant_id, record.device_id) for record in found)


def main() -> None:
    logger.info("restorable index backfilled", extra={"devices_indexed": backfill()})


if __name__ == "__main__":
    main()
