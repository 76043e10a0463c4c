"""Run-time bus queues do not pile up: a queue whose owner is gone (an API process recycled,
a session host that crashed) is deleted by the running hosts' sweep once its heartbeat is older
than the idle time, while the queues of live owners stay."""

from __future__ import annotations

import time
from typing import Any

from waiting import wait_until

from gateway.bus import queues


def _queue_urls() -> set[str]:
    prefix = queues.dynamic_queue_name("", "").rstrip("-")
    pages = queues.sqs_client().get_paginator("list_queues").paginate(QueueNamePrefix=prefix)
    return {url for page in pages for url in page.get("QueueUrls", [])}


def test_the_queue_of_a_gone_owner_is_swept_and_live_ones_stay(stack: Any) -> None:
    # Given a reply queue whose process stopped beating longer ago than the idle time
    stale = time.time() - queues.IDLE_QUEUE_SECONDS - 60
    gone = queues.create_dynamic_queue(queues.REPLY_QUEUE, "gone-process", now=stale)
    live = {host.thread.host.queue_url for host in stack.hosts}
    assert gone in _queue_urls()
    # When the session hosts sweep (every 2 s in the tests' stack)
    # Then it is deleted, and the hosts' own queues are still there
    wait_until(lambda: gone not in _queue_urls(), timeout=20, what="the idle queue swept")
    assert live <= _queue_urls()
