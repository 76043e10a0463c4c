"""Gateway routes are built on their first request (gateway.web.routing): until then a request
to another route, or a method the path does not serve, builds nothing; once built, a route
answers as FastAPI's own would, with the app's dependency overrides."""

from __future__ import annotations

import pytest
from fastapi import APIRouter, Depends, FastAPI
from fastapi.testclient import TestClient

from gateway.web import create_app
from gateway.web.deferred import DeferredModel
from gateway.web.outputs import Succeeded
from gateway.web.routing import GatewayRoute


class NoteRequest(DeferredModel):
    text: str


class NoteResponse(Succeeded):
    text: str


def caller() -> str:
    return "someone"


def lazy_app() -> tuple[FastAPI, dict[str, GatewayRoute]]:
    router = APIRouter(route_class=GatewayRoute)

    @router.post("/lazy-notes")
    def add_note(body: NoteRequest, who: str = Depends(caller)) -> NoteResponse:
        return NoteResponse(text=f"{who}: {body.text}")

    @router.get("/lazy-notes/{note_id}")
    def get_note(note_id: int) -> NoteResponse:
        return NoteResponse(text=str(note_id))

    routes = {route.name: route for route in router.routes if isinstance(route, GatewayRoute)}
    return create_app(router), routes


@pytest.mark.filterwarnings("error")  # a deferred model's validator is built without warnings
def test_only_the_route_a_request_uses_is_built() -> None:
    # Given an app whose routes were never used
    app, routes = lazy_app()
    assert not any(route.built for route in routes.values())

    # When one route answers a request
    answer = TestClient(app).post("/lazy-notes", json={"text": "hi"})

    # Then it answers as declared, and only it was built
    assert answer.status_code == 200
    assert answer.json() == {"success": True, "text": "someone: hi"}
    assert routes["add_note"].built
    assert not routes["get_note"].built


def test_a_method_the_path_does_not_serve_is_405_without_building_the_route() -> None:
    app, routes = lazy_app()

    answer = TestClient(app).delete("/lazy-notes/7")

    assert answer.status_code == 405
    assert answer.json()["error_code"] == "METHOD_NOT_ALLOWED"
    assert not routes["get_note"].built


def test_a_lazy_route_validates_its_path_and_body_as_declared() -> None:
    client = TestClient(lazy_app()[0])

    assert client.get("/lazy-notes/7").json() == {"success": True, "text": "7"}
    assert client.get("/lazy-notes/seven").status_code == 400
    assert client.post("/lazy-notes", json={"text": 7}).json()["error_code"] == "VALIDATION_ERROR"


def test_a_lazy_route_answers_with_the_apps_dependency_overrides() -> None:
    app, _ = lazy_app()
    app.dependency_overrides[caller] = lambda: "override"

    answer = TestClient(app).post("/lazy-notes", json={"text": "hi"})

    assert answer.json()["text"] == "override: hi"


def test_the_openapi_document_builds_every_route() -> None:
    app, routes = lazy_app()

    document = app.openapi()

    assert all(route.built for route in routes.values())
    assert set(document["paths"]) == {"/lazy-notes", "/lazy-notes/{note_id}"}


def test_a_declaration_fastapi_rejects_fails_each_time_the_route_is_used() -> None:
    # Given a route FastAPI refuses to build (a 204 cannot have a body)
    router = APIRouter(route_class=GatewayRoute)

    @router.get("/lazy-empty", status_code=204)
    def empty() -> NoteResponse:
        return NoteResponse(text="")

    app = create_app(router)

    # Then building it fails with FastAPI's reason, again on the next use
    for _ in range(2):
        with pytest.raises(AssertionError, match="204 must not have a response body"):
            app.openapi()
