"""The collector pause of a cold start: always undone, never turns on what was off, and a
Lambda handler's first request only."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from fastapi import APIRouter
from lambda_calls import CONTEXT, http_api_event

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
    answers = [handler(http_api_event("/collector"), CONTEXT) for _ in range(2)]

    # Then the first ran with the collector paused, the second with it on, and it is on after
    assert [answer["statusCode"] for answer in answers] == [200, 200]
    assert seen == [False, True]
    assert gc.isenabled()
