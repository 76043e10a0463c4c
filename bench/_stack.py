"""moto with the template's tables, queues and buckets, for a benchmark's own process."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from local_stack.aws import create_resources, start_moto
from local_stack.stack import LocalStack
from local_stack.template import load_template, local_resources


@contextmanager
def moto_stack(prefix: str) -> Iterator[tuple[LocalStack, dict[str, str]]]:
    """The stack's settings in this process's environment (set before any gateway module is
    imported, which reads them), moto serving its resources; yields the stack and the physical
    names of the resources by logical id. moto stops on leaving."""
    stack = LocalStack(prefix=prefix)
    os.environ.update(stack.environment())
    server, endpoint = start_moto(stack.moto_port)
    try:
        yield stack, create_resources(endpoint, local_resources(load_template()), prefix)
    finally:
        server.stop()
