"""The local stack runs each request as the function API Gateway would route it to: every route
of every function in template.yaml, served locally, is attributed to that function (what the
deploy rehearsal judges each call against)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from local_stack.apps import served_routers
from local_stack.principals import PRINCIPAL, RoutedFunctions, handler_functions
from local_stack.template import load_template


def _template_routes() -> list[tuple[str, str, str]]:
    """(function, method, path) of every HttpApi route the template declares, a value in each
    path parameter; the catch-all and the served OpenAPI document (no function's own) left out."""
    routes = []
    for name, resource in load_template()["Resources"].items():
        for event in resource.get("Properties", {}).get("Events", {}).values():
            properties = event["Properties"]
            if event["Type"] != "HttpApi" or properties["Path"] in ("$default", "/openapi.json"):
                continue
            routes.append((name, properties["Method"], re.sub(r"\{[^}]+\}", "x", properties["Path"])))
    return routes


def _principal_of(method: str, path: str) -> Any:
    """The principal a request runs as, behind the local stack's wrapper."""
    seen = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(PRINCIPAL.get())

    routes = [route for router in served_routers() for route in router.routes]
    wrapper = RoutedFunctions(app, routes, handler_functions(load_template()))
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "headers": [],
        "query_string": b"",
    }
    asyncio.run(wrapper(scope, None, None))  # type: ignore[arg-type]
    (principal,) = seen
    return principal


@pytest.mark.parametrize(("function", "method", "path"), _template_routes())
def test_each_route_runs_as_the_function_api_gateway_routes_it_to(
    function: str, method: str, path: str
) -> None:
    # Given a route the template gives to a function
    # When a request for it reaches the local app, Then it runs as that function
    assert _principal_of(method, path) == function


def test_a_request_for_no_functions_route_runs_as_none() -> None:
    # The simulator's control API and unknown paths are no deployed function's
    assert _principal_of("GET", "/_simulator/accounts") is None
