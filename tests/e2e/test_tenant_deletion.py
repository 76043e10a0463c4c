"""DELETE /global/tenants/{id} of a tenant with connected devices: the sessions are stopped side
by side under one deadline, so the deletion fits in the function's time whatever the number
of devices; a host that does not answer in time stops it before any record is deleted."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr
from webhooks_steps import wait_until

from session_host.network.simulated.session import SimulatedSession

pytestmark = pytest.mark.e2e


class SlowLogouts:
    """Makes every simulated logout take ``seconds`` longer (a slow network), and records when
    each one ran, by device."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
        self.spans: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()
        original = SimulatedSession.logout
        spans, lock = self.spans, self._lock

        async def slow_logout(session: SimulatedSession) -> None:
            began = time.monotonic()
            await asyncio.sleep(seconds)
            await original(session)
            with lock:
                spans[session._device_id] = (began, time.monotonic())

        monkeypatch.setattr(SimulatedSession, "logout", slow_logout)


def connected_devices(api: Any, token: str, count: int) -> list[str]:
    devices = [create_device(api, token, name=f"phone {index}") for index in range(count)]
    for device_id in devices:
        pair_by_qr(api, token, device_id, new_phone())
    return devices


def test_sessions_of_a_deleted_tenant_are_stopped_side_by_side(api, stack, monkeypatch):
    # Given a tenant with four connected devices, on a network where each logout takes 1.5 s
    tenant = api.register()
    devices = connected_devices(api, tenant.admin_token, 4)
    logouts = SlowLogouts(monkeypatch, seconds=1.5)
    # When the platform deletes the tenant
    response = api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token)
    # Then it is deleted with its four devices
    assert response.status_code == 200, response.text
    assert response.json()["deleted"] == {"users": 1, "devices": 4, "webhooks": 0}
    # And the four logouts ran at the same time: each began before any of them ended
    assert set(logouts.spans) == set(devices)
    assert max(began for began, _ in logouts.spans.values()) < min(
        ended for _, ended in logouts.spans.values()
    )
    # And every session is stopped and unlinked
    for device_id in devices:
        assert stack.network.linked_jid(device_id) is None
        assert stack.network.connection_count(device_id) == 0


def test_a_host_that_does_not_answer_in_time_stops_the_deletion_before_any_record_goes(
    api, stack, monkeypatch, settings_override, envelope
):
    # Given a tenant with two connected devices, whose logouts take longer than the gateway
    # waits for a session host (1 s here)
    tenant = api.register()
    devices = connected_devices(api, tenant.admin_token, 2)
    logouts = SlowLogouts(monkeypatch, seconds=2.5)
    settings_override(COMMAND_TIMEOUT_SECONDS="1")
    # When the platform deletes the tenant
    response = api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token)
    # Then 503 SERVICE_UNAVAILABLE, and the tenant, its users and its devices are all still there
    envelope(response, 503, "SERVICE_UNAVAILABLE")
    assert api.request("GET", "/status", tenant.admin_token).status_code == 200
    assert {device["id"] for device in api.walk("/devices", tenant.admin_token, "devices")} == set(devices)
    # When the hosts have finished, and the deletion is repeated
    wait_until(lambda: set(logouts.spans) == set(devices))
    again = api.request("DELETE", f"/global/tenants/{tenant.id}", api.master_token)
    # Then it completes
    assert again.status_code == 200, again.text
    assert again.json()["deleted"]["devices"] == 2
    assert api.request("GET", "/status", tenant.admin_token).status_code == 401
