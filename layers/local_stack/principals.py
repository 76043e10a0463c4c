"""Whose code runs: the deployed principal (a function's role, or the session host's task role).

On AWS each function and each session host task is a process of its own, with its own role.
The local stack runs them all in one process, so the principal is carried by a context variable
instead, set where each one's code is entered: a request, by the function API Gateway would
route it to (:class:`RoutedFunctions`); the delivery worker's polls and invocations; a session
host's start, whose tasks inherit it. Context flows wherever the code sends its work on: into the
tasks a coroutine starts, the threads ``asyncio.to_thread`` and Starlette run synchronous code
on, and the gateway's and the host's own pools (they run each task in its submitter's context).
The deploy rehearsal (tests/deploy_rehearsal) reads it to say which role made each AWS call.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

SESSION_HOST = "SessionHostTask"
"""The session host's principal: its task role (``SessionHostTaskRole``) in template.yaml."""

PRINCIPAL: ContextVar[str | None] = ContextVar("local_stack_principal", default=None)
"""The logical id of the function (or ``SessionHostTask``) whose code runs; None for none of
them (the tests themselves, the simulator's control API)."""


@contextmanager
def running_as(principal: str) -> Iterator[None]:
    """Run the block, and what it starts, as ``principal``'s code."""
    token = PRINCIPAL.set(principal)
    try:
        yield
    finally:
        PRINCIPAL.reset(token)


def handler_functions(template: Mapping[str, Any]) -> dict[str, str]:
    """Top-level package of each API function's handler (a function API Gateway routes to)
    -> the function's logical id."""
    return {
        resource["Properties"]["Handler"].split(".")[0]: name
        for name, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
        and any(event["Type"] == "HttpApi" for event in resource["Properties"].get("Events", {}).values())
    }


class RoutedFunctions:
    """Pure ASGI wrapper: each request runs as the function whose package serves its route.

    ``routes`` are the functions' routes, in the order API Gateway matches them (the routers'
    own ``routes``: how an app nests the routers it includes is FastAPI's business); a request
    no route of a function matches (the simulator's control API) runs as none.
    """

    def __init__(self, app: ASGIApp, routes: list[Any], functions: Mapping[str, str]) -> None:
        self.app = app
        self._routes = [(route, _function_of(route, functions)) for route in routes]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        principal = self._principal(scope) if scope["type"] == "http" else None
        if principal is None:
            await self.app(scope, receive, send)
            return
        with running_as(principal):
            await self.app(scope, receive, send)

    def _principal(self, scope: Scope) -> str | None:
        partial: str | None = None
        for route, function in self._routes:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                return function
            if match is Match.PARTIAL and partial is None:
                partial = function  # the path matches, the method does not (405)
        return partial


def _function_of(route: Any, functions: Mapping[str, str]) -> str | None:
    endpoint = getattr(route, "endpoint", None)
    package = getattr(endpoint, "__module__", "").split(".")[0]
    return functions.get(package)
