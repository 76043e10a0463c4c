"""Work a request hands to a pool logs with the request's keys (its request id): the pools of
the gateway run each task in its submitter's context."""

from __future__ import annotations

import json
import logging

from gateway.context_pool import ContextThreadPool
from gateway.observability import logger


class _Formatted(logging.Handler):
    """Each record as Powertools formats it, on the thread that logged it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[dict[str, object]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(logger.registered_formatter.format(record)))


def test_a_log_line_of_pool_work_carries_the_request_id() -> None:
    # Given a request whose log lines carry its id (as GatewayMiddleware appends it)
    formatted = _Formatted()
    logging.getLogger(logger.service).addHandler(formatted)
    logger.thread_safe_append_keys(request_id="request-1")
    try:
        # When it logs from work it hands to a pool
        with ContextThreadPool(max_workers=1) as pool:
            pool.submit(logger.warning, "parallel work").result()
    finally:
        logger.thread_safe_remove_keys(["request_id"])
        logging.getLogger(logger.service).removeHandler(formatted)
    # Then that line carries the request's id too
    (line,) = [line for line in formatted.lines if line["message"] == "parallel work"]
    assert line["request_id"] == "request-1"
