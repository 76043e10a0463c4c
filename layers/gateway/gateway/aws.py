"""One botocore session per process, shared by every AWS client the gateway makes.

A new botocore session parses the endpoint and service data again, and that costs more than
the client it makes (tens of milliseconds each on a Lambda cold start); a client made from a
session that already made one reuses its loader's caches. So every boto3 client, PynamoDB
connection and Powertools utility of the gateway is made here, from one session.

The session's data loader (:class:`_GatewayLoader`) does less than botocore's for the same data:

- It knows the services the gateway uses (:data:`SERVICES`). botocore's own lists the folders
  of all ~440 services it ships, about 880 directory reads and 20 ms of the first client, only
  to check that the one asked for exists.
- It reads the endpoints of those services only (``gateway.botocore_endpoints``): 0.5 ms
  instead of the 9 ms ``endpoints.json`` (1.2 MB) costs.
- It parses into plain dicts. botocore asks for ``OrderedDict`` objects, which cost
  ``endpoints.json`` 19 ms instead of 7, and S3's model 15 ms instead of 8. A dict keeps the
  same order since Python 3.7, and botocore builds its own containers from the data
  (``tests/unit/test_aws_clients.py`` compares both).
"""

from __future__ import annotations

import gzip
import json
import os
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import IO, Any

import botocore.session
from botocore.config import Config
from botocore.loaders import JSONFileLoader, Loader

from gateway import botocore_endpoints
from gateway.config import get_settings
from gateway.gc_pause import cyclic_gc_paused

SERVICES = ("dynamodb", "s3", "secretsmanager", "sqs")
"""Every AWS service the gateway makes a client of."""

CLIENT_LOCK = threading.Lock()
"""Held while a client is made: making clients from one session is not thread-safe, and the
session host makes them from several threads."""


class _DictJSONFileLoader(JSONFileLoader):
    """botocore's JSON file loader, parsing into dicts, from bytes as they are read (a gzipped
    file decompressed at once: S3's models 1 ms sooner than through ``gzip.open``)."""

    def _load_file(self, full_path: str, open_method: Callable[[str, str], IO[bytes]]) -> Any:  # noqa: ARG002
        if not os.path.isfile(full_path):
            return None
        with open(full_path, "rb") as file:
            payload = file.read()
        return json.loads(gzip.decompress(payload) if full_path.endswith(".gz") else payload)


class _GatewayLoader(Loader):
    """botocore's data loader, with the services known instead of listed from disk."""

    def __init__(self) -> None:
        super().__init__(file_loader=_DictJSONFileLoader())

    def list_available_services(self, type_name: str) -> list[str]:  # noqa: ARG002 - botocore's signature
        return list(SERVICES)

    def load_data_with_path(self, name: str) -> tuple[Any, str]:
        """The trimmed endpoints in place of botocore's, unless a customer file overrides them."""
        if name == "endpoints" and not self._customised(name):
            endpoints = botocore_endpoints.trimmed()
            if endpoints is not None:
                return endpoints, os.path.join(self.BUILTIN_DATA_PATH, name)
        return super().load_data_with_path(name)

    def _customised(self, name: str) -> bool:
        """Whether a search path before botocore's own holds a file ``name`` (~/.aws/models)."""
        others = (path for path in self.search_paths if path != self.BUILTIN_DATA_PATH)
        return any(self.file_loader.exists(os.path.join(path, name)) for path in others)


@lru_cache(maxsize=1)
def botocore_session() -> botocore.session.Session:
    """The process's botocore session."""
    session = botocore.session.get_session()
    session.register_component("data_loader", _GatewayLoader())
    return session


def client(service: str, config: Config | None = None) -> Any:
    """A new client of ``service`` in the settings' region, made from the shared session.

    A botocore client, which is what boto3 would hand out too (boto3 only adds resources and
    S3 transfer helpers, which the gateway does not use): importing boto3 costs a cold start
    ~100 ms (it loads s3transfer), so only Powertools' idempotency layer, which imports it
    itself, brings it in. Callers keep the client they make (clients are thread-safe): this
    makes a new one each call.
    """
    with CLIENT_LOCK, cyclic_gc_paused():
        return botocore_session().create_client(service, region_name=get_settings().aws_region, config=config)
