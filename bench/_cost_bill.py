"""AWS calls as they are billed: DynamoDB request units from item sizes, SQS and S3 requests.

``Recorder`` patches botocore so that every call of the process is billed to the session host
(its threads, by name) or to the Lambda side (everything else, counted only inside
``Recorder.lambda_calls``). Used by ``bench/_cost_measure.py``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

# The session host's threads: its loop, its command pollers, its AWS and adapter executors.
HOST_THREADS = ("session-host-", "poll-", "aws-", "adapter")


def _on_host() -> bool:
    return threading.current_thread().name.startswith(HOST_THREADS)


def item_size(item: dict[str, Any]) -> int:
    """DynamoDB's size of an item in its wire form: attribute names plus values."""
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())


def _value_size(value: dict[str, Any]) -> int:
    kind, inner = next(iter(value.items()))
    if kind in ("S", "B"):
        return len(inner.encode()) if isinstance(inner, str) else len(inner)
    if kind == "N":
        return len(inner.lstrip("-").replace(".", "")) // 2 + 1
    if kind in ("SS", "NS", "BS"):
        return sum(_value_size({kind[0]: each}) for each in inner)
    if kind == "M":
        return 3 + sum(len(name.encode()) + _value_size(each) + 1 for name, each in inner.items())
    if kind == "L":
        return 3 + sum(_value_size(each) + 1 for each in inner)
    return 1  # BOOL, NULL


def _read_units(size: int, consistent: bool) -> float:
    return max(1, math.ceil(size / 4096)) * (1.0 if consistent else 0.5)


def _write_units(size: int) -> float:
    return float(max(1, math.ceil(size / 1024)))


@dataclass
class Bill:
    """AWS requests as they are billed: DynamoDB request units, SQS and S3 requests."""

    rru: float = 0.0
    wru: float = 0.0
    sqs: float = 0.0
    s3_put: float = 0.0
    s3_get: float = 0.0
    calls: float = 0.0

    def add(self, service: str, operation: str, params: dict[str, Any], response: dict[str, Any]) -> None:
        self.calls += 1
        if service == "sqs":
            self.sqs += 1
        elif service == "s3":
            if operation in (
                "PutObject",
                "CopyObject",
                "ListObjectsV2",
                "CreateMultipartUpload",
                "UploadPart",
            ):
                self.s3_put += 1
            else:
                self.s3_get += 1
        elif service == "dynamodb":
            self._dynamodb(operation, params, response)

    def _dynamodb(self, operation: str, params: dict[str, Any], response: dict[str, Any]) -> None:
        consistent = bool(params.get("ConsistentRead"))
        if operation == "GetItem":
            self.rru += _read_units(item_size(response.get("Item", {})), consistent)
        elif operation in ("Query", "Scan"):
            self.rru += _read_units(sum(map(item_size, response.get("Items", []))), consistent)
        elif operation == "BatchGetItem":
            for items in response.get("Responses", {}).values():
                self.rru += sum(_read_units(item_size(item), consistent) for item in items)
        elif operation == "PutItem":
            self.wru += _write_units(item_size(params["Item"]))
        elif operation in ("UpdateItem", "DeleteItem"):
            self.wru += 1.0  # every item these touch here is under 1 KB (leases, records, counters)
        elif operation == "BatchWriteItem":
            for requests in params["RequestItems"].values():
                for request in requests:
                    put = request.get("PutRequest")
                    self.wru += _write_units(item_size(put["Item"])) if put else 1.0
        elif operation == "TransactWriteItems":
            self.wru += 2.0 * len(params["TransactItems"])
        elif operation == "TransactGetItems":
            self.rru += 2.0 * len(params["TransactItems"])

    def __add__(self, other: Bill) -> Bill:
        return Bill(*(getattr(self, name) + getattr(other, name) for name in Bill.__dataclass_fields__))

    def scaled(self, factor: float) -> Bill:
        return Bill(*(getattr(self, name) * factor for name in Bill.__dataclass_fields__))

    def per(self, count: int) -> Bill:
        return self.scaled(1 / count)


@dataclass
class Recorder:
    """Every botocore call of the process, billed to the Lambda side or to the host side."""

    lambda_side: Bill = field(default_factory=Bill)
    host_side: Bill = field(default_factory=Bill)
    counting_lambda: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    @contextmanager
    def installed(self) -> Iterator[Recorder]:
        import botocore.client

        original = botocore.client.BaseClient._make_api_call
        recorder = self

        def recording(client: Any, operation: str, params: dict[str, Any]) -> Any:
            service = client.meta.service_model.service_name
            on_host = _on_host()
            try:
                response = original(client, operation, params)
            except Exception:  # a failed conditional write is billed like a successful one
                response = {}
                raise
            finally:
                if on_host or recorder.counting_lambda:
                    with recorder.lock:
                        side = recorder.host_side if on_host else recorder.lambda_side
                        side.add(service, operation, params, response)
            return response

        with mock.patch.object(botocore.client.BaseClient, "_make_api_call", recording):
            yield self

    @contextmanager
    def window(self) -> Iterator[dict[str, Bill]]:
        """The calls made inside the block (the Lambda side's only within ``lambda_calls``)."""
        with self.lock:
            before_lambda, before_host = self.lambda_side + Bill(), self.host_side + Bill()
        found: dict[str, Bill] = {}
        yield found
        with self.lock:
            found["lambda"] = _minus(self.lambda_side, before_lambda)
            found["host"] = _minus(self.host_side, before_host)

    @contextmanager
    def lambda_calls(self) -> Iterator[None]:
        self.counting_lambda = True
        try:
            yield
        finally:
            self.counting_lambda = False


def _minus(after: Bill, before: Bill) -> Bill:
    return Bill(*(getattr(after, name) - getattr(before, name) for name in Bill.__dataclass_fields__))
