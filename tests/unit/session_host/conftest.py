"""Fixtures of the session host's unit tests: the group model in its test setting, and the
simulator's control API in process (``client`` over ``network``; a module may override
``network`` with its own timings)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes_control_groups import fake_master, make_accounts
from fakes_groups import Clock, counter_ids, on_network
from fastapi.testclient import TestClient

from gateway.web import create_app
from session_host.network.simulated import SimulatedNetwork
from session_host.network.simulated.control import control_router
from session_host.network.simulated.groups import Groups


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def groups(clock: Clock) -> Groups:
    return Groups(clock=clock, ids=counter_ids(), resolve=on_network)


@pytest.fixture
def network() -> SimulatedNetwork:
    return SimulatedNetwork()


@pytest.fixture
def client(network: SimulatedNetwork) -> Iterator[TestClient]:
    with TestClient(create_app(control_router(network, fake_master))) as test_client:
        yield test_client


@pytest.fixture
def lids(client: TestClient) -> dict[str, str]:
    return make_accounts(client)
