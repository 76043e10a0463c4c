"""The SAM template's HTTP API: the pinned routes go to their functions, every integration
is a payload-format-2.0 proxy, and each function's routes are its FastAPI app's routes.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from template_steps import API_FUNCTIONS

# Routes that must exist and where they go. More routes may be added; these may not move.
PINNED_ROUTES = {
    "POST /register": "PlatformFunction",
    "GET /tenants": "PlatformFunction",
    "GET /global/tenants/{tenant_id}": "PlatformFunction",
    "PATCH /global/tenants/{tenant_id}": "PlatformFunction",
    "DELETE /global/tenants/{tenant_id}": "PlatformFunction",
    "$default": "PlatformFunction",
    "POST /users": "UsersFunction",
    "GET /users": "UsersFunction",
    "GET /users/{user_id}": "UsersFunction",
    "PUT /users/{user_id}": "UsersFunction",
    "GET /status": "UsersFunction",
}

_INTEGRATION_FUNCTION = re.compile(r"\$\{(\w+)\.Arn\}")
# A FastAPI route matching every path, e.g. "/{path:path}": the app's side of `$default`.
_CATCH_ALL_PATH = re.compile(r"/\{\w+:path\}")
_GREEDY = re.compile(r"\{(\w+)\+\}")


def _template_routes(template: dict[str, Any], function: str) -> set[str]:
    """Route keys ("GET /users", "$default") of a function's HttpApi events in the template."""
    events = template["Resources"][function]["Properties"].get("Events", {})
    routes = set()
    for event in events.values():
        if event["Type"] != "HttpApi":
            continue
        path = event["Properties"]["Path"]
        routes.add("$default" if path == "$default" else f"{event['Properties']['Method'].upper()} {path}")
    return routes


@pytest.fixture(scope="module")
def transformed_routes(transformed: dict[str, Any]) -> dict[str, str]:
    """Route key -> function logical id, read from the HTTP API's OpenAPI body."""
    api = transformed["Resources"]["HttpApi"]
    assert api["Type"] == "AWS::ApiGatewayV2::Api"
    routes: dict[str, str] = {}
    for path, operations in api["Properties"]["Body"]["paths"].items():
        for method, operation in operations.items():
            uri = operation["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
            match = _INTEGRATION_FUNCTION.search(uri)
            assert match, f"{method} {path}: integration is not a function ARN: {uri}"
            if path == "/$default":
                key = "$default"
            elif method == "x-amazon-apigateway-any-method":
                key = f"ANY {path}"
            else:
                key = f"{method.upper()} {path}"
            routes[key] = match.group(1)
    return routes


def test_routes_map_to_their_functions(template: dict[str, Any], transformed_routes: dict[str, str]) -> None:
    # Given the HTTP API routes after the transform
    # When the pinned routes are looked up
    # Then each goes to the function that serves it
    for route, function in PINNED_ROUTES.items():
        assert transformed_routes.get(route) == function, route
    # And the API has exactly the routes the functions' HttpApi events declare
    declared = {route: fn for fn in API_FUNCTIONS for route in _template_routes(template, fn)}
    assert transformed_routes == declared


def test_api_uses_payload_format_2(transformed: dict[str, Any]) -> None:
    # Given the HTTP API body
    paths = transformed["Resources"]["HttpApi"]["Properties"]["Body"]["paths"]

    # When every integration is inspected
    integrations = [op["x-amazon-apigateway-integration"] for ops in paths.values() for op in ops.values()]

    # Then all are Lambda proxy integrations with payload format 2.0
    assert integrations
    for integration in integrations:
        assert integration["type"] == "aws_proxy"
        assert integration["payloadFormatVersion"] == "2.0"


@pytest.mark.parametrize(("function", "package"), sorted(API_FUNCTIONS.items()))
def test_template_routes_match_fastapi_app(template: dict[str, Any], function: str, package: str) -> None:
    # Given the FastAPI app a function serves
    app = importlib.import_module(f"{package}.handler").app
    assert isinstance(app, FastAPI)

    # When its routes and the function's HttpApi events are listed (FastAPI keeps included
    # routers nested; iter_route_contexts yields their routes with the effective full path)
    app_routes = {
        f"{method} {context.path}"
        for context in iter_route_contexts(app.routes)
        if isinstance(context.original_route, APIRoute)
        for method in context.methods or ()
    }
    catch_all = {route for route in app_routes if _CATCH_ALL_PATH.fullmatch(route.split(" ", 1)[1])}
    app_routes -= catch_all
    # (API Gateway's greedy parameter {proxy+} is the app's {proxy:path})
    template_routes = {_GREEDY.sub(r"{\1:path}", route) for route in _template_routes(template, function)}
    has_default_route = "$default" in template_routes
    template_routes.discard("$default")

    # Then the app has a catch-all route exactly when API Gateway sends it `$default`
    assert bool(catch_all) == has_default_route, (
        f"{function}: $default route in template: {has_default_route}, app catch-all: {sorted(catch_all)}"
    )
    # And API Gateway sends the function exactly the other routes its app serves
    assert template_routes == app_routes, (
        f"{function}: only in template {sorted(template_routes - app_routes)}, "
        f"only in {package}.handler.app {sorted(app_routes - template_routes)}"
    )
