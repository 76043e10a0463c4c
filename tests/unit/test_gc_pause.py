"""The collector pause of a cold start: always undone, and never turns on what was off."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from gateway.gc_pause import cyclic_gc_paused


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
