"""The group model's test setting: a clock, identifiers counted from 1, and a network on which
everyone but GHOST exists (DEE also by LID)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from session_host.network.simulated.group_records import GroupError

ANA = "15550000001@s.whatsapp.net"
BOB = "15550000002@s.whatsapp.net"
CAI = "15550000003@s.whatsapp.net"
DEE = "15550000004@s.whatsapp.net"
GHOST = "15550000099@s.whatsapp.net"
DEE_LID = "207180606656725@lid"


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def counter_ids() -> Callable[[str], str]:
    counters = {kind: itertools.count(1) for kind in ("group", "invite", "picture")}
    return lambda kind: f"{kind[:3]}{next(counters[kind])}" if kind != "group" else f"{next(counters[kind])}"


def on_network(jid: str) -> str | None:
    """Everyone but GHOST is on the network; DEE's LID names DEE."""
    if jid == GHOST:
        return None
    return DEE if jid == DEE_LID else jid


def refused(code: str, call: Callable[[], object]) -> GroupError:
    with pytest.raises(GroupError) as caught:
        call()
    assert caught.value.code == code
    return caught.value
