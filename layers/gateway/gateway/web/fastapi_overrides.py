"""Three things FastAPI does on every cold start that a gateway function does not need,
replaced without changing what any request is answered.

1. **The pydantic.v1 check.** FastAPI refuses pydantic.v1 models, and to tell one apart it
   imports ``pydantic.v1`` as it builds a route's first parameter: 15-20 ms of every
   function's first request (``bench/coldstart``). No class can be a pydantic.v1 model before
   ``pydantic.v1`` is imported, so the check looks in ``sys.modules`` first; once anything
   has imported it, the check is FastAPI's own.
2. **Sync code in a worker thread, in Lambda.** FastAPI runs a sync dependency or endpoint in
   anyio's thread pool so that a server's event loop keeps serving other requests meanwhile.
   A Lambda invocation is its process's only request: nothing else waits on the loop. Inside
   :func:`sync_calls_inline` (every invocation of ``make_lambda_handler``'s handler) such
   calls run on the invocation's own thread: no import of anyio's backend and no thread
   started on the first request (~10 ms), no hand-over between threads on any request.
   Everywhere else (the local server, tests' apps) they still run in the thread pool.
3. **Reading an endpoint's source for its line number.** On a route's first request FastAPI
   notes the endpoint's file and line for its validation errors' messages, and finds the line
   with ``inspect.getsourcelines``: it reads and tokenizes the module's source, compiling the
   tokenizer's expressions on the way (~12 ms of CPU of a function's first request). The code
   object already knows both (:func:`endpoint_context`, the same answer).

All replace module globals of FastAPI 0.165 (pinned in ``pyproject.toml``); :func:`install`
fails loudly if a FastAPI release renames them, and ``tests/unit/test_fastapi_overrides.py``
checks each behaviour.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import fastapi._compat.shared as fastapi_compat
import fastapi.dependencies.utils as fastapi_dependencies
import fastapi.encoders as fastapi_encoders
import fastapi.routing as fastapi_routing
from fastapi.exceptions import EndpointContext
from starlette.concurrency import run_in_threadpool

T = TypeVar("T")

_RUN_SYNC_INLINE: ContextVar[bool] = ContextVar("gateway_run_sync_inline", default=False)
_is_pydantic_v1_model_class = fastapi_compat.is_pydantic_v1_model_class
_is_pydantic_v1_model_instance = fastapi_compat.is_pydantic_v1_model_instance


def is_pydantic_v1_model_class(cls: Any) -> bool:
    """FastAPI's check, asked only once pydantic.v1 exists in this process."""
    return "pydantic.v1" in sys.modules and _is_pydantic_v1_model_class(cls)


def is_pydantic_v1_model_instance(obj: Any) -> bool:
    """FastAPI's check of a value to encode, likewise."""
    return "pydantic.v1" in sys.modules and _is_pydantic_v1_model_instance(obj)


def endpoint_context(func: Callable[..., Any]) -> EndpointContext:
    """Where an endpoint is (file, first line, name), as FastAPI's own function finds it,
    from the code object instead of the source."""
    context = EndpointContext()
    code = getattr(inspect.unwrap(func), "__code__", None)
    if code is not None:
        context["file"], context["line"] = code.co_filename, code.co_firstlineno
    name = getattr(func, "__name__", None)
    if name is not None:
        context["function"] = name
    return context


async def run_sync(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``run_in_threadpool``, or a plain call inside :func:`sync_calls_inline`."""
    if _RUN_SYNC_INLINE.get():
        return func(*args, **kwargs)
    return await run_in_threadpool(func, *args, **kwargs)


@contextmanager
def sync_calls_inline() -> Iterator[None]:
    """FastAPI's sync dependencies and endpoints run on the calling thread inside."""
    token = _RUN_SYNC_INLINE.set(True)
    try:
        yield
    finally:
        _RUN_SYNC_INLINE.reset(token)


def install() -> None:
    """Put each in FastAPI's place (idempotent)."""
    replacements = (
        (fastapi_compat, "is_pydantic_v1_model_class", is_pydantic_v1_model_class),
        (fastapi_encoders, "is_pydantic_v1_model_instance", is_pydantic_v1_model_instance),
        (fastapi_routing, "run_in_threadpool", run_sync),
        (fastapi_routing, "_extract_endpoint_context", endpoint_context),
        (fastapi_dependencies, "run_in_threadpool", run_sync),
    )
    for module, name, replacement in replacements:
        if not hasattr(module, name):
            raise RuntimeError(
                f"{module.__name__}.{name} is gone: gateway/web/fastapi_overrides.py needs a look"
            )
        setattr(module, name, replacement)
