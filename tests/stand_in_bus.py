"""The one stand-in for the command bus in unit tests: it records each request and answers
with the reply (or raises the error) the test gave it, in place of the SQS round trip to a
session host. Requests take a contract and its arguments, as :meth:`CommandBus.request` does;
the answer goes through the wire (:mod:`bus_wire`), so its result is parsed by the command's
contract as the bus client parses it."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from bus_wire import received, wire_args

from gateway.bus import Reply
from gateway.bus.contracts import CommandArgs, Contract


class StandInBus:
    """Records each request (its command name, its arguments as JSON and the keywords);
    answers with :attr:`answer` (a reply, or an error it raises)."""

    def __init__(self, answer: Reply[Any] | Exception | None = None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.answer = answer

    def request(
        self, contract: Contract[Any, Any], args: CommandArgs | None = None, **kwargs: Any
    ) -> Reply[Any]:
        self.sent.append({"name": contract.name, "args": wire_args(contract, args), **kwargs})
        if isinstance(self.answer, Exception):
            raise self.answer
        assert self.answer is not None, "the test gave the bus no answer"
        return received(contract, self.answer)

    def tell(self, contract: Contract[Any, Any], args: CommandArgs | None = None, **kwargs: Any) -> None:
        """A command sent without a wait for its reply (:meth:`CommandBus.tell`): recorded."""
        self.sent.append({"name": contract.name, "args": wire_args(contract, args), **kwargs})

    def result(self, result: dict[str, Any]) -> None:
        """The next requests succeed with ``result`` (the host's JSON)."""
        self.answer = Reply(command_id="c", ok=True, result=result)

    def fail(self, kind: str, message: str | None = None, *, code: str | None = None) -> None:
        """The next requests fail with error ``kind`` (and, for ``refused``, the group ``code``)."""
        self.answer = Reply(command_id="c", ok=False, error_kind=kind, error_message=message, error_code=code)

    def args(self) -> dict[str, Any]:
        """The arguments of the one request sent."""
        (sent,) = self.sent
        return sent["args"]


def install(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, answer: Reply[Any] | Exception | None = None
) -> StandInBus:
    """A stand-in that ``module.get_bus()`` hands out for the rest of the test."""
    stand_in = StandInBus(answer)
    monkeypatch.setattr(module, "get_bus", lambda: stand_in)
    return stand_in
