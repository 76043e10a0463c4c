"""FastAPI's pydantic.v1 check without importing pydantic.v1, sync code on the invocation's
thread in Lambda only, and an endpoint's place without reading its source
(``gateway.web.fastapi_overrides``)."""

from __future__ import annotations

import inspect
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import APIRouter, Depends
from fastapi.exceptions import PydanticV1NotSupportedError
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from lambda_calls import CONTEXT, http_api_event

from gateway.web import create_app, fastapi_overrides, make_lambda_handler
from gateway.web.routing import GatewayRoute
from local_stack.apps import function_routers

_BUILD_A_ROUTE = """
import sys
from typing import Annotated
from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel
from gateway.web import create_app

class Body(BaseModel):
    text: str

def dependency(limit: Annotated[int, Query()] = 10) -> int:
    return limit

router = APIRouter()

@router.post("/things/{thing_id}", operation_id="change_thing")
def change_thing(thing_id: str, body: Body, limit: Annotated[int, Depends(dependency)]) -> Body:
    return body

app = create_app(router, openapi_url="/openapi.json")
app.openapi()  # builds every route: parameters, body, dependencies, response model
print("pydantic.v1" in sys.modules)
"""


def test_routes_are_built_without_importing_pydantic_v1() -> None:
    # Given a fresh interpreter, as a cold start is
    # When a route with path, query, body, dependency and response model is built
    completed = subprocess.run(  # noqa: S603 - this interpreter, our own code
        [sys.executable, "-c", _BUILD_A_ROUTE], capture_output=True, text=True, timeout=120, check=False
    )

    # Then pydantic.v1 was never imported
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip().splitlines()[-1] == "False"


def test_a_pydantic_v1_model_is_still_refused() -> None:
    # Given a pydantic.v1 model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pydantic import v1

    class Body(v1.BaseModel):
        text: str

    def change_thing(body: object) -> None:
        return None

    change_thing.__annotations__["body"] = Body  # a class, not the string annotations make of it

    # When a route takes it as its body, then FastAPI refuses it as it builds the route
    route = GatewayRoute("/things", change_thing, methods=["POST"], name="change_thing")
    with pytest.raises(PydanticV1NotSupportedError):
        _ = route.dependant


def _thread_recording_app() -> tuple[APIRouter, dict[str, int]]:
    """A route whose async dependency, sync dependency and sync endpoint note their thread."""
    threads: dict[str, int] = {}
    router = APIRouter()

    async def async_dependency() -> None:
        threads["async dependency"] = threading.get_ident()

    def sync_dependency() -> None:
        threads["sync dependency"] = threading.get_ident()

    @router.get(
        "/threads", operation_id="threads", dependencies=[Depends(async_dependency), Depends(sync_dependency)]
    )
    def endpoint() -> dict[str, bool]:
        threads["sync endpoint"] = threading.get_ident()
        return {"ok": True}

    return router, threads


@pytest.mark.filterwarnings("ignore:No application metrics to publish")  # the test route publishes none
def test_in_a_lambda_invocation_sync_code_runs_on_the_invocations_thread() -> None:
    # Given a function's handler, made as every API function makes it
    router, threads = _thread_recording_app()
    handler = make_lambda_handler(create_app(router))

    # When it answers two requests (the first one builds the route)
    for _ in range(2):
        threads.clear()
        assert handler(http_api_event("/threads"), CONTEXT)["statusCode"] == 200

        # Then each time the sync dependency and endpoint ran on the invocation's own thread
        assert set(threads.values()) == {threading.get_ident()}, threads


def test_outside_lambda_sync_code_still_runs_in_the_thread_pool() -> None:
    # Given the same route served as the local server serves it, not through a Lambda handler
    router, threads = _thread_recording_app()
    with TestClient(create_app(router)) as client:
        # When it is asked
        assert client.get("/threads").status_code == 200

    # Then the sync dependency and endpoint ran off the event loop's thread
    assert threads["sync dependency"] != threads["async dependency"]
    assert threads["sync endpoint"] != threads["async dependency"]


def _every_endpoint() -> list[Callable[..., Any]]:
    """The endpoint of every route of every API function."""
    return [
        route.endpoint
        for router in function_routers()
        for route in router.routes
        if isinstance(route, APIRoute)
    ]


def test_an_endpoints_context_is_where_its_source_says() -> None:
    # Given the endpoint of every route the gateway serves
    endpoints = _every_endpoint()
    assert len(endpoints) > 50

    # Then the context FastAPI notes for its errors is the file and first line that reading
    # the source finds (as FastAPI 0.165 found them), and its name
    for endpoint in endpoints:
        assert fastapi_overrides.endpoint_context(endpoint) == {
            "file": inspect.getsourcefile(endpoint),
            "line": inspect.getsourcelines(endpoint)[1],
            "function": endpoint.__name__,
        }


@pytest.mark.filterwarnings("ignore:No application metrics to publish")  # the test route publishes none
def test_a_routes_first_request_reads_no_source(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a function's handler, and a record of every source read for a line number
    read: list[object] = []
    monkeypatch.setattr(inspect, "getsourcelines", lambda thing: read.append(thing) or ([], 0))
    router, _ = _thread_recording_app()
    handler = make_lambda_handler(create_app(router))

    # When its route answers its first request
    assert handler(http_api_event("/threads"), CONTEXT)["statusCode"] == 200

    # Then no source was read to find where the endpoint is
    assert read == []
