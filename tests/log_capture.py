"""Reading what the gateway logs, to check what a log line may and may not say."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager


class _Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def logged(name: str = "gateway") -> Iterator[list[logging.LogRecord]]:
    """The records of logger ``name`` (Powertools names its logger after the service) while
    the block runs; its own handlers and propagation are left as they are."""
    keep = _Keep()
    logger = logging.getLogger(name)
    logger.addHandler(keep)
    try:
        yield keep.records
    finally:
        logger.removeHandler(keep)


def said(record: logging.LogRecord) -> str:
    """Everything a record carries (its message and every extra field), to search in."""
    return " ".join([record.getMessage(), *(repr(value) for value in vars(record).values())])
