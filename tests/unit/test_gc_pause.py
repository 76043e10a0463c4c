"""The collector pause of a cold start: always undone, never turns on what was off, and a
Lambda handler's first request only."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from fastapi import APIRouter

from gateway.gc_pause import cyclic_gc_paused
from gateway.web import create_app, make_lambda_handler


@pytest.fixture
def collector_restored() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    if was_enabled:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.usefixtures("collector_restored")
def test_the_collector_is_off_inside_and_on_after() -> None:
    gc.enable()
    with cyclic_gc_paused():
        assert not gc.isenabled()
        with cyclic_gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause does not end the outer one
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_restored")
def test_the_collector_is_on_again_after_an_error() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), cyclic_gc_paused():
        raise RuntimeError("import failed")
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_restored")
def test_a_collector_switched_off_elsewhere_stays_off() -> None:
    gc.disable()
    with cyclic_gc_paused():
        pass
    assert not gc.isenabled()


@pytest.mark.usefixtures("collector_restored")
@pytest.mark.filterwarnings("ignore:No application metrics to publish")  # the test route publishes none
def test_a_lambda_handler_pauses_the_collector_for_its_first_request_only() -> None:
    # Given a function's handler made as every API function makes it, with a route that looks
    seen: list[bool] = []
    router = APIRouter()

    @router.get("/collector", operation_id="collector")
    def collector() -> dict[str, bool]:
        seen.append(gc.isenabled())
        return {"ok": True}

    handler = make_lambda_handler(create_app(router))
    gc.enable()

    # When it answers two requests
    answers = [handler(_http_api_event("/collector"), _CONTEXT) for _ in range(2)]

    # Then the first ran with the collector paused, the second with it on, and it is on after
    assert [answer["statusCode"] for answer in answers] == [200, 200]
    assert seen == [False, True]
    assert gc.isenabled()


_CONTEXT = SimpleNamespace(
    function_name="TestFunction",
    memory_limit_in_mb=512,
    invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:TestFunction",
    aws_request_id="00000000-0000-4000-8000-000000000000",
)


def _http_api_event(path: str) -> dict[str, object]:
    return {
        "version": "2.0",
        "routeKey": f"GET {path}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"host": "example.test"},
        "requestContext": {
            "http": {"method": "GET", "path": path, "protocol": "HTTP/1.1", "sourceIp": "192.0.2.1"},
            "requestId": "r",
            "stage": "$default",
        },
        "isBase64Encoded": False,
    }
