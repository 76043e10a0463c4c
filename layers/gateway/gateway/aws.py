"""One botocore session per process, shared by every AWS client the gateway makes.

A new botocore session parses the endpoint and service data again, and that costs more than
the client it makes (on every Lambda cold start: bench/README.md); a client made from a
session that already made one reuses its loader's caches. So every boto3 client, PynamoDB
connection and Powertools utility of the gateway is made here, from one session, which is
botocore's own (its loader, its data: nothing of botocore is replaced).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import botocore.session
from botocore.config import Config

from gateway.config import get_settings
from gateway.gc_pause import cyclic_gc_paused

CLIENT_LOCK = threading.Lock()
"""Held while a client is made: making clients from one session is not thread-safe, and the
session host makes them from several threads."""


@lru_cache(maxsize=1)
def botocore_session() -> botocore.session.Session:
    """The process's botocore session."""
    return botocore.session.get_session()


def client(service: str, config: Config | None = None) -> Any:
    """A new client of ``service`` in the settings' region, made from the shared session.

    A botocore client, which is what boto3 would hand out too (boto3 only adds resources and
    S3 transfer helpers, which the gateway does not use): importing boto3 is a cold start's
    largest import (it loads s3transfer), so only Powertools' idempotency layer, which imports it
    itself, brings it in. Callers keep the client they make (clients are thread-safe): this
    makes a new one each call.
    """
    with CLIENT_LOCK, cyclic_gc_paused():
        return botocore_session().create_client(service, region_name=get_settings().aws_region, config=config)
