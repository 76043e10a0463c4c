"""The one stand-in for the command bus in unit tests: it records each request and answers
with the reply (or raises the error) the test gave it, in place of the SQS round trip to a
session host."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from gateway.bus import CommandName, Reply


class StandInBus:
    """Records each request; answers with :attr:`answer` (a reply, or an error it raises)."""

    def __init__(self, answer: Reply | Exception | None = None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.answer = answer

    def request(self, name: CommandName, **kwargs: Any) -> Reply:
        self.sent.append({"name": name, **kwargs})
        if isinstance(self.answer, Exception):
            raise self.answer
        assert self.answer is not None, "the test gave the bus no answer"
        return self.answer

    def result(self, result: dict[str, Any]) -> None:
        """The next requests succeed with ``result``."""
        self.answer = Reply(command_id="c", ok=True, result=result)

    def fail(self, kind: str, message: str | None = None) -> None:
        """The next requests fail with error ``kind``."""
        self.answer = Reply(command_id="c", ok=False, error_kind=kind, error_message=message)

    def args(self) -> dict[str, Any]:
        """The arguments of the one request sent."""
        (sent,) = self.sent
        return sent["args"]


def install(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, answer: Reply | Exception | None = None
) -> StandInBus:
    """A stand-in that ``module.get_bus()`` hands out for the rest of the test."""
    stand_in = StandInBus(answer)
    monkeypatch.setattr(module, "get_bus", lambda: stand_in)
    return stand_in
