"""Every AWS call the local stack's code makes, as the IAM requests it is authorised by.

A handler on botocore's ``before-parameter-build`` event of the gateway's one botocore session
(``gateway.aws.botocore_session``, which every client, PynamoDB connection and Powertools
utility of the gateway is made from) sees each call with its parameters, once however often it
is retried; a pre-signed URL's signing too (the URL is used with the signer's credentials).
The principal is the local stack's (:mod:`local_stack.principals`): the function a request was
routed to, the delivery function, or a session host. Calls of no principal (the tests' own,
the simulator's) are counted, not recorded.

Each call becomes the IAM requests AWS authorises it by (:func:`iam_requests`): an action and a
resource named after the environment variable the code took its name from (``TOKENS_TABLE``,
``DYNAMIC_QUEUE_PREFIX`` + ``-r-x``...), which the check resolves per principal from the
template. Ids in names and keys are replaced by ``x``: a role's grants never name them, and the
record stays small (a few hundred distinct requests for the whole suite).
"""

from __future__ import annotations

import re
import threading
import traceback
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from local_stack.principals import PRINCIPAL

ANY_RESOURCE = "*"


@dataclass(frozen=True)
class Resource:
    """A resource as the code names it: ``kind`` (table, queue, bucket, object, secret, or ``*``),
    the environment variable whose value names it (None: no variable does), and what follows
    that value (an index, a dynamic queue's kind and owner, an object's key)."""

    kind: str
    variable: str | None
    name: str
    suffix: str = ""


@dataclass(frozen=True)
class Request:
    """One IAM request of one recorded call."""

    principal: str
    action: str
    resource: Resource
    operation: str  # the API call it came from, e.g. "dynamodb.TransactWriteItems"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Request:
        return cls(**{**data, "resource": Resource(**data["resource"])})


# --- calls -> IAM actions --------------------------------------------------------------------

_SQS_BATCHES = {
    "SendMessageBatch": "SendMessage",
    "DeleteMessageBatch": "DeleteMessage",
    "ChangeMessageVisibilityBatch": "ChangeMessageVisibility",
}
"""SQS authorises a batch call by its single call's action (there is no ``...Batch`` action)."""

_S3_OBJECT_ACTIONS = {
    "GetObject": "GetObject",
    "HeadObject": "GetObject",
    "PutObject": "PutObject",
    "CreateMultipartUpload": "PutObject",
    "UploadPart": "PutObject",
    "CompleteMultipartUpload": "PutObject",
    "AbortMultipartUpload": "AbortMultipartUpload",
    "DeleteObject": "DeleteObject",
}
_S3_BUCKET_ACTIONS = {"ListObjectsV2": "ListBucket", "ListObjects": "ListBucket", "HeadBucket": "ListBucket"}
"""S3 operations whose IAM action has another name (the Service Authorization Reference)."""

_TRANSACT_ACTIONS = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "Get": "GetItem"}
_TRANSACT_ACTIONS["ConditionCheck"] = "ConditionCheckItem"
"""A DynamoDB transaction needs, per item, the action of that item's own call."""


def iam_requests(
    service: str, operation: str, params: Mapping[str, Any], names: Names
) -> list[tuple[str, Resource]]:
    """The (action, resource) pairs AWS authorises ``service.operation(**params)`` by.

    An operation this does not know maps to ``service:operation`` on ``*``; the evaluator
    refuses an action that does not exist, so a missing mapping shows up as an error, not
    as a silent allow.
    """
    mapping = {"dynamodb": _dynamodb, "sqs": _sqs, "s3": _s3, "secretsmanager": _secretsmanager}.get(service)
    try:
        if mapping is not None:
            return mapping(operation, params, names)
    except KeyError:  # an operation on no resource of its own (ListTables...)
        pass
    return [(f"{service}:{operation}", Resource(ANY_RESOURCE, None, ANY_RESOURCE))]


def _secretsmanager(operation: str, params: Mapping[str, Any], names: Names) -> list[tuple[str, Resource]]:
    return [(f"secretsmanager:{operation}", names.secret(str(params["SecretId"])))]


def _dynamodb(operation: str, params: Mapping[str, Any], names: Names) -> list[tuple[str, Resource]]:
    if operation in ("BatchWriteItem", "BatchGetItem"):
        return [(f"dynamodb:{operation}", names.table(table)) for table in params.get("RequestItems", {})]
    if operation in ("TransactWriteItems", "TransactGetItems"):
        return [
            (f"dynamodb:{_TRANSACT_ACTIONS[kind]}", names.table(item[kind]["TableName"]))
            for item in params.get("TransactItems", [])
            for kind in item
        ]
    index = params.get("IndexName")
    return [(f"dynamodb:{operation}", names.table(params["TableName"], index))]


def _sqs(operation: str, params: Mapping[str, Any], names: Names) -> list[tuple[str, Resource]]:
    if operation == "ListQueues":
        return [("sqs:ListQueues", Resource(ANY_RESOURCE, None, ANY_RESOURCE))]
    queue = names.queue(params["QueueName"] if "QueueName" in params else _queue_name(params["QueueUrl"]))
    action = _SQS_BATCHES.get(operation, operation)
    requests = [(f"sqs:{action}", queue)]
    if operation == "CreateQueue" and params.get("tags"):
        requests.append(("sqs:TagQueue", queue))  # tags given at creation need TagQueue too
    return requests


def _s3(operation: str, params: Mapping[str, Any], names: Names) -> list[tuple[str, Resource]]:
    bucket = str(params["Bucket"])
    if operation in _S3_BUCKET_ACTIONS:
        return [(f"s3:{_S3_BUCKET_ACTIONS[operation]}", names.bucket(bucket))]
    if operation == "DeleteObjects":
        keys = [item["Key"] for item in params.get("Delete", {}).get("Objects", [])]
        return [("s3:DeleteObject", names.bucket(bucket, key)) for key in keys]
    action = _S3_OBJECT_ACTIONS.get(operation, operation)
    return [(f"s3:{action}", names.bucket(bucket, params.get("Key")))]


def _queue_name(queue_url: str) -> str:
    return urlparse(queue_url).path.rstrip("/").rsplit("/", 1)[-1]


# --- local names -> the variables that named them ----------------------------------------------

_ID_LIKE = re.compile(r"[0-9]|^[A-Za-z0-9_-]{16,}$")


def _shape(text: str, separator: str) -> str:
    """``text`` with its id-like parts (with a digit, or 16+ characters) replaced by ``x``."""
    return separator.join("x" if _ID_LIKE.search(part) else part for part in text.split(separator))


class Names:
    """Finds the environment variable whose local value named a resource.

    ``variables`` are the local stack's values of the variables the template sets (a table's
    name, a queue's URL, the bucket, the dynamic queues' prefix, the secret's ARN).
    """

    def __init__(self, variables: Mapping[str, str]) -> None:
        self._values = {value: name for name, value in variables.items() if value}
        self._queues = {_queue_name(value): name for name, value in variables.items() if "://" in value}
        self._prefixes = {value: name for name, value in variables.items() if name.endswith("_PREFIX")}

    def table(self, name: str, index: str | None = None) -> Resource:
        return Resource("table", self._values.get(name), name, f"/index/{index}" if index else "")

    def queue(self, name: str) -> Resource:
        if name in self._queues:
            return Resource("queue", self._queues[name], name)
        for prefix, variable in self._prefixes.items():
            if name.startswith(prefix + "-"):
                kind, *owner = name[len(prefix) + 1 :].split("-")
                return Resource("queue", variable, prefix, "-" + "-".join([kind, *("x" for _ in owner)]))
        return Resource("queue", None, name)

    def bucket(self, name: str, key: str | None = None) -> Resource:
        variable = self._values.get(name)
        if key is None:
            return Resource("bucket", variable, name)
        return Resource("object", variable, name, "/" + _shape(key, "/"))

    def secret(self, secret_id: str) -> Resource:
        return Resource("secret", self._values.get(secret_id), secret_id)


# --- the recorder --------------------------------------------------------------------------------


class Recorder:
    """Records the IAM requests of every call made through ``session`` by a principal's code."""

    def __init__(self, session: Any, variables: Mapping[str, str]) -> None:
        self._names = Names(variables)
        self._lock = threading.Lock()
        self.requests: set[Request] = set()
        self.unattributed: Counter[str] = Counter()  # "<operation> from <where>" -> calls of no principal
        session.register("before-parameter-build", self._record, unique_id="deploy-rehearsal")

    def _record(self, params: Mapping[str, Any], model: Any, **_: Any) -> None:
        service, operation = model.service_model.service_name, model.name
        principal = PRINCIPAL.get()
        if principal is None:
            # The tests call on their own thread; a call of no principal elsewhere is code whose
            # caller the rehearsal cannot tell: where it came from is kept for the summary.
            on_own_thread = threading.current_thread() is threading.main_thread()
            where = "the tests" if on_own_thread else _caller()
            with self._lock:
                self.unattributed[f"{service}.{operation} from {where}"] += 1
            return
        with self._lock:
            for action, resource in iam_requests(service, operation, params, self._names):
                self.requests.add(Request(principal, action, resource, f"{service}.{operation}"))

    def snapshot(self) -> list[dict[str, Any]]:
        with self._lock:
            return [request.to_json() for request in in_order(self.requests)]


def in_order(requests: Iterable[Request]) -> list[Request]:
    """``requests`` sorted (by principal, action, resource; one named by no variable first)."""

    def place(request: Request) -> tuple[str, ...]:
        resource = request.resource
        return (
            request.principal,
            request.action,
            resource.kind,
            resource.variable or "",
            resource.name,
            resource.suffix,
            request.operation,
        )

    return sorted(requests, key=place)


def merge(recordings: Iterable[list[dict[str, Any]]]) -> set[Request]:
    """The requests of several recordings (one per test worker), as one set."""
    return {Request.from_json(item) for recording in recordings for item in recording}


_REPOSITORY = Path(__file__).resolve().parents[2]
_TESTS = _REPOSITORY / "tests"
_HERE = Path(__file__).resolve().parent


def _caller() -> str:
    """Where a call of no principal came from: ``the tests`` when a test's code is on the stack
    (a thread a test started), else the innermost frame of this repository's code, else the
    thread's name."""
    ours = []
    for frame in traceback.extract_stack():
        path = Path(frame.filename).resolve()
        if _REPOSITORY in path.parents and _HERE not in path.parents and "site-packages" not in path.parts:
            ours.append((path, f"{path.name}:{frame.lineno} ({frame.name})"))
    tests = [where for path, where in ours if _TESTS in path.parents]
    if tests:
        return f"the tests ({tests[0]})"
    return ours[-1][1] if ours else f"thread {threading.current_thread().name}"
