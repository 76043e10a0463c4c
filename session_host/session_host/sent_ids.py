"""The gateway's ids of the device's own sends that a receipt names (``gateway_message_ids``).

Receipts name the network's ids; a client knows the gateway's (POST /send/* answered them).
The tenure remembers the latest sends its dispatcher made (:class:`RecentSends`: a receipt
often comes before the outbox marks its send ``sent``), and the outbox's keys-only index
(:func:`gateway.messages.outbox.gateway_ids`) answers for older ones. Ids neither knows
(messages sent from the phone, or older than the outbox keeps) have no gateway id.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from gateway.messages import outbox
from gateway.observability import logger
from gateway.webhooks.catalog import EventName
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.network.port import NetworkEvent

RECEIPTS = frozenset({EventName.MESSAGE_DELIVERED, EventName.MESSAGE_READ})
RECENT_SENDS = 1000
"""How many of a tenure's latest sends it remembers (a few dozen bytes each)."""


class RecentSends:
    """A tenure's latest sends: the network's id → the gateway's, oldest forgotten first."""

    def __init__(self, capacity: int = RECENT_SENDS) -> None:
        self._ids: OrderedDict[str, str] = OrderedDict()
        self._capacity = capacity

    def add(self, network_message_id: str, gateway_message_id: str) -> None:
        self._ids[network_message_id] = gateway_message_id
        while len(self._ids) > self._capacity:
            self._ids.popitem(last=False)

    def get(self, network_message_id: str) -> str | None:
        return self._ids.get(network_message_id)


async def with_gateway_ids(
    event: NetworkEvent, recent: RecentSends, aws: AwsCalls, tenant_id: str, device_id: str
) -> NetworkEvent:
    """A receipt with ``gateway_message_ids`` filled (in the order of its ``message_ids``);
    any other event as it is. An outbox that cannot be read leaves the ids it would have
    given out: the receipt itself is never held back."""
    if event.name not in RECEIPTS:
        return event
    network_ids: list[str] = list(event.data.get("message_ids", ()))
    found = {network_id: gateway_id for network_id in network_ids if (gateway_id := recent.get(network_id))}
    missing = [network_id for network_id in network_ids if network_id not in found]
    if missing:
        try:
            found |= await aws(outbox.gateway_ids, tenant_id, device_id, missing)
        except AWS_ERRORS as error:
            logger.warning(
                "gateway ids of a receipt not read from the outbox",
                extra={"device_id": device_id, "error": str(error)},
            )
    gateway_ids = [found[network_id] for network_id in network_ids if network_id in found]
    return replace(event, data={**event.data, "gateway_message_ids": gateway_ids})
