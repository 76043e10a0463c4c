"""The published API description and the route table stay equal to the code, and the
description is a contract: typed bodies, documented errors, a security scheme everywhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient

from gateway.devices.outputs import DeviceStatus
from gateway.web.error_docs import ERROR_CODES_KEY
from gateway.web.openapi_document import PACKAGED_DOCUMENT
from gateway.web.route_table import allowed_methods, routes
from local_stack.apps import function_routers, local_app
from local_stack.openapi import current_document, render
from session_host.network.port import SessionState
from session_host.network.simulated import SimulatedNetwork

MASTER_ROUTES = {
    ("POST", "/register"),
    ("GET", "/tenants"),
    ("GET", "/global/tenants/{tenant_id}"),
    ("PATCH", "/global/tenants/{tenant_id}"),
    ("DELETE", "/global/tenants/{tenant_id}"),
}
ERROR_BODIES = {
    "ErrorEnvelope",
    "OperationErrorEnvelope",
    "InvalidTokenError",
    "InsufficientPermissionsError",
    "MasterTokenError",
}


def test_the_committed_openapi_document_matches_the_routers() -> None:
    # Given the OpenAPI document generated from every function's routers
    generated = render(current_document())

    # Then the committed copy, the one the platform function serves, is that document
    assert PACKAGED_DOCUMENT.read_text() == generated, "openapi.json is stale: run `make openapi`"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """The document the local stack serves: every function's routes and the simulator's."""
    return local_app(SimulatedNetwork()).openapi()


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield method.upper(), path, operation


def test_no_operation_documents_422(document: dict[str, Any]) -> None:
    # The gateway answers invalid input with 400; FastAPI's 422 and its schemas are gone
    assert [(m, p) for m, p, operation in operations(document) if "422" in operation["responses"]] == []
    assert not {"HTTPValidationError", "ValidationError"} & set(document["components"]["schemas"])


def test_every_operation_names_its_token(document: dict[str, Any]) -> None:
    schemes = document["components"]["securitySchemes"]
    assert {name: scheme["scheme"] for name, scheme in schemes.items()} == {
        "UserToken": "bearer",
        "MasterToken": "bearer",
    }
    for method, path, operation in operations(document):
        master = (method, path) in MASTER_ROUTES or path.startswith("/_simulator/")
        assert operation.get("security") == [{"MasterToken" if master else "UserToken": []}], (method, path)


def test_every_operation_documents_the_refusals_of_its_token(document: dict[str, Any]) -> None:
    for method, path, operation in operations(document):
        body = "MasterTokenError" if operation["security"] == [{"MasterToken": []}] else "InvalidTokenError"
        assert _schema_refs(operation["responses"]["401"]) == {body}, (method, path)


def test_every_success_body_of_the_functions_is_a_named_model(document: dict[str, Any]) -> None:
    for method, path, operation in operations(document):
        if path.startswith("/_simulator/"):
            continue  # local only, untyped: it plays the other side of the network
        successes = [(code, response) for code, response in operation["responses"].items() if code < "3"]
        redirects = [response for code, response in operation["responses"].items() if code.startswith("3")]
        if not successes and redirects:  # a redirect has no body, only where to go (GET /media/...)
            assert all("Location" in response["headers"] for response in redirects), (method, path)
            continue
        assert successes, (method, path)
        for status, response in successes:
            refs = _schema_refs(response)
            assert len(refs) == 1, (method, path, status)
            assert refs <= set(document["components"]["schemas"]), (method, path, status)


def test_every_error_is_a_documented_body(document: dict[str, Any]) -> None:
    for method, path, operation in operations(document):
        for status, response in operation["responses"].items():
            if status >= "4":
                bodies = _schema_refs(response)
                assert bodies, (method, path, status)
                assert bodies <= ERROR_BODIES, (method, path, status)
                if bodies <= {"ErrorEnvelope", "OperationErrorEnvelope"}:
                    assert response[ERROR_CODES_KEY], (method, path, status)
        assert {"413", "500"} <= set(operation["responses"]), (method, path)


def test_every_operation_with_input_documents_400(document: dict[str, Any]) -> None:
    for method, path, operation in operations(document):
        takes_input = "requestBody" in operation or any(
            parameter["in"] in ("query", "header") for parameter in operation.get("parameters", [])
        )
        if takes_input:
            assert "400" in operation["responses"], (method, path)


def test_operation_ids_are_unique(document: dict[str, Any]) -> None:
    ids = [operation["operationId"] for _, _, operation in operations(document)]
    assert len(ids) == len(set(ids))


def test_device_statuses_are_the_session_hosts() -> None:
    assert [status.value for status in DeviceStatus] == [state.value for state in SessionState]


def _schema_refs(response: dict[str, Any]) -> set[str]:
    """The component names a response's JSON schema refers to at its top (``$ref`` or ``anyOf``)."""
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    alternatives = schema.get("anyOf", [schema])
    return {item["$ref"].rsplit("/", 1)[-1] for item in alternatives if "$ref" in item}


def test_platform_function_serves_the_complete_document() -> None:
    # Given the platform function's own app (as behind API Gateway)
    from platform_api.handler import app

    # When /openapi.json is requested
    response = TestClient(app).get("/openapi.json")

    # Then it is the document of every route, not only the platform's
    assert response.status_code == 200
    assert response.json() == json.loads(PACKAGED_DOCUMENT.read_text())
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
    assert declared == routes()


def test_allowed_methods_tell_known_paths_from_unknown_ones() -> None:
    assert allowed_methods("/users/abc") == ["GET", "PUT"]
    assert allowed_methods("/users/abc/extra") == []
    assert allowed_methods("/nowhere") == []


def test_local_app_serves_every_function_route() -> None:
    # Given the local app that `make run` serves
    paths = local_app().openapi()["paths"]

    # Then every route of the table is in it with its method
    for method, path in routes():
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
