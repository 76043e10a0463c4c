"""The published API description and the route table stay equal to the code."""

from __future__ import annotations

import json

from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient

from gateway.web.openapi_document import PACKAGED_DOCUMENT
from gateway.web.route_table import ROUTES, allowed_methods
from local_stack.apps import function_routers, local_app
from local_stack.openapi import DOCS_DOCUMENT, current_document, render


def test_committed_openapi_documents_match_the_routers() -> None:
    # Given the OpenAPI document generated from every function's routers
    generated = render(current_document())

    # Then docs/openapi.json and the copy the platform function serves are that document
    assert DOCS_DOCUMENT.read_text() == generated, "docs/openapi.json is stale: run `make openapi`"
    assert PACKAGED_DOCUMENT.read_text() == generated, "packaged openapi.json is stale: run `make openapi`"


def test_platform_function_serves_the_complete_document() -> None:
    # Given the platform function's own app (as behind API Gateway)
    from platform_api.handler import app

    # When /openapi.json is requested
    response = TestClient(app).get("/openapi.json")

    # Then it is the document of every route, not only the platform's
    assert response.status_code == 200
    assert response.json() == json.loads(DOCS_DOCUMENT.read_text())
    assert "/users/{user_id}" in response.json()["paths"]


def test_route_table_lists_exactly_the_routes_of_all_functions() -> None:
    # Given every route the function routers declare
    declared = {
        (method, context.path)
        for router in function_routers()
        for context in iter_route_contexts(router.routes)
        if isinstance(context.original_route, APIRoute)
        for method in context.methods or ()
    }

    # Then the table the catch-all uses for 405-versus-404 is the same set
    assert declared == ROUTES


def test_allowed_methods_tell_known_paths_from_unknown_ones() -> None:
    assert allowed_methods("/users/abc") == ["GET", "PUT"]
    assert allowed_methods("/users/abc/extra") == []
    assert allowed_methods("/nowhere") == []


def test_local_app_serves_every_function_route() -> None:
    # Given the local app that `make run` serves
    paths = local_app().openapi()["paths"]

    # Then every route of the table is in it with its method
    for method, path in ROUTES:
        assert method.lower() in paths[path]


def test_platform_catch_all_answers_every_method_with_404_or_405() -> None:
    # Given the platform function, which receives every unmatched route behind API Gateway
    from platform_api.handler import app

    client = TestClient(app)

    # Then an unknown path is 404 whatever the method, and a known path 405 with its methods
    for method in ("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"):
        assert client.request(method, "/does-not-exist").status_code == 404
    refused = client.request("OPTIONS", "/users/abc")
    assert refused.status_code == 405
    assert refused.headers["allow"] == "GET, PUT"
    assert refused.json()["error_code"] == "METHOD_NOT_ALLOWED"
