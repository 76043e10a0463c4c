"""One botocore session per process, shared by every AWS client the gateway makes.

A new botocore session parses the endpoint and service data again, and that costs more than
the client it makes (tens of milliseconds each on a Lambda cold start); a client made from a
session that already made one reuses its loader's caches. So every boto3 client, PynamoDB
connection and Powertools utility of the gateway is made here, from one session.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import boto3
import botocore.session
from botocore.config import Config

from gateway.config import get_settings

CLIENT_LOCK = threading.Lock()
"""Held while a client is made: making clients from one session is not thread-safe, and the
session host makes them from several threads."""


@lru_cache(maxsize=1)
def botocore_session() -> botocore.session.Session:
    """The process's botocore session."""
    return botocore.session.get_session()


@lru_cache(maxsize=1)
def _boto3_session() -> boto3.session.Session:
    return boto3.session.Session(botocore_session=botocore_session(), region_name=get_settings().aws_region)


def client(service: str, config: Config | None = None) -> Any:
    """A new boto3 client of ``service`` in the settings' region, made from the shared session.

    Callers keep the client they make (clients are thread-safe): this makes a new one each call.
    """
    with CLIENT_LOCK:
        return _boto3_session().client(service, config=config)
