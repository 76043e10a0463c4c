"""Fixtures of the session host's unit tests: the group model in its test setting."""

from __future__ import annotations

import pytest
from fakes_groups import Clock, counter_ids, on_network

from session_host.network.simulated.groups import Groups


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def groups(clock: Clock) -> Groups:
    return Groups(clock=clock, ids=counter_ids(), resolve=on_network)
