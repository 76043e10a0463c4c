"""A thread pool whose tasks run in the context they were submitted from."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class ContextThreadPool(ThreadPoolExecutor):
    """``ThreadPoolExecutor`` whose tasks run in a copy of their submitter's context, as
    ``asyncio.to_thread`` runs its function: what a request keeps in context variables (the
    request id its log lines carry) follows the work it hands to the pool."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        context = contextvars.copy_context()
        return super().submit(lambda: context.run(fn, *args, **kwargs))
