"""Session hosts that stop, restart, die and miss deadlines, seen over HTTP on the local stack.

The local stack runs its session hosts in this process on threads of their own, sharing one
simulated network; "killing" a host stops its loop dead (no lease released, no session closed)
and makes the network see its connections vanish, as the death of a process would.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, wait_for_status
from waiting import wait_until

from gateway.bus.queues import sqs_client
from gateway.config import get_settings
from local_stack.stack import LocalStack

pytestmark = pytest.mark.e2e

LEASE_TTL = 6.0  # tests/conftest.py gives the local stack's hosts this lease


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def queue_is_empty(queue_url: str) -> bool:
    """No message on the queue, neither waiting nor received and not yet deleted."""
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    attributes = sqs_client().get_queue_attributes(QueueUrl=queue_url, AttributeNames=names)["Attributes"]
    return all(attributes[name] == "0" for name in names)


def owner_of(stack: LocalStack, device_id: str) -> Any:
    (owner,) = [host for host in stack.hosts if device_id in host.owned_devices()]
    return owner


@pytest.mark.usefixtures("one_host_after")
def test_a_restarted_host_brings_devices_back_without_pairing(
    api: Any, tenant: Any, stack: LocalStack, events: Any
) -> None:
    # Given a connected device
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    jid = pair_by_qr(api, tenant.admin_token, device_id, new_phone())["messaging_jid"]

    # When the session host stops cleanly and a new one starts
    stack.stop_host(stack.hosts[0])
    stack.start_host()

    # Then the device is connected again as the same account, without a new QR code
    events.wait_for(device_id, "device.connected", count=2, timeout=LEASE_TTL * 3)
    device = wait_for_status(api, tenant.admin_token, device_id, "connected")
    assert device["messaging_jid"] == jid
    assert len(events.of(device_id, "qr.generated")) == 1
    assert len(events.of(device_id, "pair.success")) == 1
    assert stack.network is not None
    assert stack.network.max_simultaneous_connections(device_id) == 1


@pytest.mark.usefixtures("one_host_after")
def test_devices_of_a_killed_host_are_taken_over_within_the_lease(
    api: Any,
    tenant: Any,
    stack: LocalStack,
    envelope: Callable[..., dict[str, Any]],
    settings_override: Callable[..., None],
) -> None:
    # Given two hosts and connected devices, some run by the host about to die
    stack.start_host()
    device_ids = [create_device(api, tenant.admin_token, f"phone {n}") for n in range(4)]
    for device_id in device_ids:
        pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    victim = owner_of(stack, device_ids[0])
    orphans = [device_id for device_id in device_ids if device_id in victim.owned_devices()]

    # When that host dies
    stack.kill_host(victim)
    killed_at = time.monotonic()

    # Then a command sent to it meanwhile gets an honest 503, not a hang
    settings_override(COMMAND_TIMEOUT_SECONDS="1")
    response = api.request("POST", f"/devices/{orphans[0]}/connect", tenant.admin_token)
    envelope(response, 503, "SERVICE_UNAVAILABLE")

    # And within the lease expiry (plus one takeover round) the survivor runs its devices
    (survivor,) = stack.hosts
    wait_until(
        lambda: set(orphans) <= survivor.owned_devices(),
        killed_at + LEASE_TTL + LEASE_TTL / 3 + 3 - time.monotonic(),
        what="the dead host's devices taken over",
    )
    for device_id in orphans:
        wait_for_status(api, tenant.admin_token, device_id, "connected")

    # And commands succeed again, now through the survivor
    settings_override(COMMAND_TIMEOUT_SECONDS="10")
    for device_id in device_ids:
        response = api.request("POST", f"/devices/{device_id}/connect", tenant.admin_token)
        assert response.status_code == 202, response.text
        assert response.json()["device"]["status"] == "connected"

    # And no device was ever connected by two hosts at once
    assert stack.network is not None
    for device_id in device_ids:
        assert stack.network.max_simultaneous_connections(device_id) == 1


@pytest.mark.usefixtures("one_host_after")
def test_a_command_past_its_deadline_is_never_executed(
    api: Any,
    tenant: Any,
    stack: LocalStack,
    events: Any,
    envelope: Callable[..., dict[str, Any]],
    settings_override: Callable[..., None],
) -> None:
    # Given a device and no session host to answer
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    for running in list(stack.hosts):
        stack.stop_host(running)

    # When a connect gets no answer in time
    settings_override(COMMAND_TIMEOUT_SECONDS="1")
    envelope(
        api.request("POST", f"/devices/{device_id}/connect", tenant.admin_token), 503, "SERVICE_UNAVAILABLE"
    )

    # And a host comes up afterwards and reads the queue, until nothing is left on it
    host = stack.start_host()
    wait_until(lambda: queue_is_empty(get_settings().command_queue_url), what="the command queue read")

    # Then the command was dropped, not executed: no session, no QR, nothing on the network
    assert device_id not in host.owned_devices()
    assert stack.network is not None
    assert stack.network.connection_count(device_id) == 0
    assert events.of(device_id) == []
    device = api.request("GET", f"/devices/{device_id}", tenant.admin_token).json()["device"]
    assert device["status"] == "not_ready"


@pytest.mark.usefixtures("one_host_after")
def test_a_restored_device_the_network_refuses_keeps_trying_on_its_new_host(
    api: Any, tenant: Any, stack: LocalStack, events: Any
) -> None:
    # Given a connected device, and a network that will refuse its next two dials
    device_id = create_device(api, tenant.admin_token)
    events.subscribe(api, tenant.admin_token, device_id)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    simulator_fault = {"device_id": device_id, "operation": "connect", "error": "refused", "count": 2}
    response = api.request("POST", "/_simulator/faults", api.master_token, json=simulator_fault)
    assert response.status_code == 200, response.text

    # When its session host stops cleanly and a new one restores it
    stack.stop_host(stack.hosts[0])
    new_host = stack.start_host()

    # Then the failed resumes are reported and retried by the new host, which keeps the device
    # (no hand-back, no operator), until it is connected again
    failures = events.wait_for(device_id, "connection.failure", count=2, timeout=LEASE_TTL * 3)
    assert sorted(f["data"]["attempt"] for f in failures) == [1, 2]
    events.wait_for(device_id, "device.connected", count=2, timeout=LEASE_TTL * 3)
    wait_for_status(api, tenant.admin_token, device_id, "connected")
    assert device_id in new_host.owned_devices()
