"""Blocking AWS SDK calls (boto3, PynamoDB) run off the event loop, on threads the host owns.

A pool of its own rather than the loop's default executor: adapters run their blocking
network calls there, and neither should wait behind the other. Each call runs in its awaiting
task's context, as ``asyncio.to_thread`` runs its function.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from botocore.exceptions import BotoCoreError, ClientError
from pynamodb.exceptions import PynamoDBException

P = ParamSpec("P")
T = TypeVar("T")

AWS_ERRORS: tuple[type[Exception], ...] = (BotoCoreError, ClientError, PynamoDBException)
"""What a failed AWS call raises (throttling, network, service errors)."""


class AwsCalls:
    """Runs blocking calls on a bounded thread pool and awaits them."""

    def __init__(self, threads: int, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)

    async def __call__(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        loop = asyncio.get_running_loop()
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        return await loop.run_in_executor(self._executor, call)

    def shutdown(self) -> None:
        """Let calls under way finish on their own; nothing waits for them."""
        self._executor.shutdown(wait=False)
