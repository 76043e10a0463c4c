"""Python's cyclic garbage collector paused while a cold start builds what it keeps.

A cold start allocates hundreds of thousands of objects that all stay alive (modules,
classes, botocore's parsed endpoint and service data) and makes no cyclic garbage worth
collecting; yet every 700 allocations the collector runs, and its older generations rescan
the growing heap. Paused while a handler module imports, while a client is made and during a
function's first request (which builds its route and its clients); what it saves is in
bench/README.md (``bench/coldstart``). Everything made while paused stays collectable afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """The collector off inside, and on again after if it was on before (nesting is safe)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
