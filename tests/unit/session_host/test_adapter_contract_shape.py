"""One contract, two adapters: the shape of a session (issue 23, "adapters as mixin stacks").

A session is its lifecycle plus one object per family of the port (``sending``, ``messages``,
``groups``, ``status``, ``presence``, ``profile``). Each family object's own class defines
every operation of its protocol, so the port's call lands on the code that runs in one hop,
with no mixin stack or inherited stub in between; and what neonize cannot do is named once, in a
table whose every entry is an operation of the port.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from recording_sink import RecordingSink

from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import GroupOperations
from session_host.network.neonize import NeonizePort
from session_host.network.neonize.catalog import LIBRARY, UNSUPPORTED_OPERATIONS, unsupported
from session_host.network.port import (
    DeviceSession,
    MessageOperations,
    NetworkError,
    SendOperations,
)
from session_host.network.profile_types import PresenceOperations, ProfileOperations
from session_host.network.simulated import SimulatedNetwork, SimulatedPort
from session_host.network.status_types import StatusOperations

FAMILIES: dict[str, type[Any]] = {
    "sending": SendOperations,
    "messages": MessageOperations,
    "groups": GroupOperations,
    "status": StatusOperations,
    # Presence and profile of the linked account.
    "presence": PresenceOperations,
    "profile": ProfileOperations,
}


def operations(protocol: type[Any]) -> set[str]:
    """The public members a protocol of the port declares (methods and properties)."""
    return {
        name
        for name, member in vars(protocol).items()
        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))
    }


def open_session(adapter: str, tmp_path: Path) -> Any:
    port = NeonizePort() if adapter == "neonize" else SimulatedPort(SimulatedNetwork())
    return port.open_session("dev-1", data_dir=tmp_path, sink=RecordingSink())


@pytest.mark.parametrize("adapter", ["simulated", "neonize"])
def test_each_family_is_one_object_whose_own_class_runs_every_operation(adapter: str, tmp_path: Path) -> None:
    # Given a session of the adapter
    session = open_session(adapter, tmp_path)
    # Then the session itself is its lifecycle only, not a stack of operation classes
    assert type(session).__bases__ == (object,)
    assert operations(DeviceSession) - set(FAMILIES) <= set(dir(session))
    seen: set[int] = set()
    for name, protocol in FAMILIES.items():
        family = getattr(session, name)
        # And each family is an object of its own, whose class defines (not inherits) every
        # operation of its protocol: one hop from the port to the code
        assert id(family) not in seen
        assert family is not session
        seen.add(id(family))
        assert type(family).__bases__ == (object,), type(family)
        missing = operations(protocol) - set(vars(type(family)))
        assert not missing, f"{adapter} {name}: {sorted(missing)}"


def test_every_operation_neonize_refuses_is_an_operation_of_the_port() -> None:
    # Given what the port offers, by family and on the session itself
    offered = operations(DeviceSession).union(*(operations(protocol) for protocol in FAMILIES.values()))
    # Then each entry of neonize's table names one of them (``operation`` or ``operation.option``)
    for entry in UNSUPPORTED_OPERATIONS:
        assert entry.split(".", 1)[0] in offered, entry


def test_the_refusal_is_the_ports_unsupported_naming_operation_adapter_and_reason() -> None:
    error = unsupported("answer_group_requests", "approve 2 join request(s) of 1@g.us")
    assert isinstance(error, NetworkError)
    assert error.kind is ErrorKind.UNSUPPORTED
    assert error.kind is ErrorKind.UNSUPPORTED
    message = str(error)
    assert message.startswith("answer_group_requests (approve 2 join request(s) of 1@g.us)")
    assert LIBRARY in message
    assert UNSUPPORTED_OPERATIONS["answer_group_requests"] in message
