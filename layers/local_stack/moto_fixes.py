"""Fixes of moto for the local stack: the costs of the load the delivery worker puts on it,
and DynamoDB writes that concurrent requests could lose.

moto 5.2.5 makes SQS calls cost O(queue depth), with a large constant: each message's
visibility is decided by reading the clock through datetime arithmetic (~12 µs), and

* ReceiveMessage checks each message it returns against the retention period by computing
  *every* attribute of the queue, three of which count the queue's messages one by one;
* SendMessage computes every attribute too, to read one flag.

With 1,000 events queued, one receive of 10 took about a second of CPU and held the GIL of the
whole local stack. And the server, for every request of any service, lists moto's package
directory and stats each of its ~200 entries while holding its dispatch lock (5-8 ms per
request on a busy machine).

:func:`apply` gives SQS a clock read by ``time.time()`` (the same value), a retention check
that reads only the retention period (the same comparison), and the server the package's
module list read once. Behaviour is unchanged; that receive takes ~15 ms.

DynamoDB in moto 5.2.5 is not safe under concurrent requests, which the threaded server
serves at once. TransactWriteItems deep-copies every table it touches first and, when the
transaction is cancelled (a condition failed: a duplicate name, a deleted tenant), puts those
copies back: every write another request made to those tables meanwhile is lost. And an
``ADD`` update reads and writes the item in two steps, so two at once count one. DynamoDB
itself makes each item write atomic and a transaction all-or-nothing without touching other
items; :func:`apply` gets the same results by serialising moto's DynamoDB requests.

SQS in moto 5.2.5 loses messages under concurrent requests too. DeleteMessage rebuilds the
queue's message list without the lock SendMessage appends under: a message sent while a delete
is copying the list is dropped when the copy replaces it, and so is one sent into the list a
concurrent delete replaced (whose own deleted message comes back). The delivery worker deletes
from several invokers while the session host (or a bench) publishes: one event in a few
thousand vanished without a trace, never received, never logged, in no DLQ. :func:`apply` makes
a delete hold the queue's lock, as SQS itself never drops an acknowledged send.
"""

from __future__ import annotations

import datetime
import threading
import time
from typing import Any

from moto import backends
from moto.core import utils
from moto.dynamodb.responses import DynamoHandler
from moto.sqs import models

_MOTO_MODULES = tuple(backends.list_of_moto_modules())
_DYNAMODB_LOCK = threading.Lock()
_DYNAMODB_CALL_ACTION = DynamoHandler.call_action
_SQS_DELETE_MESSAGE = models.Queue.delete_message


def _unix_time(dt: datetime.datetime | None = None) -> float:
    return time.time() if dt is None else utils.unix_time(dt)


def _unix_time_millis(dt: datetime.datetime | None = None) -> float:
    return _unix_time(dt) * 1000.0


def _is_message_valid_based_on_retention_period(
    self: models.SQSBackend, queue_name: str, message: Any
) -> bool:
    # moto sets a queue's attributes at run time, from the names CreateQueue takes.
    retention_period = int(self.get_queue(queue_name).message_retention_period)  # type: ignore[attr-defined]
    return bool(retention_period + message.sent_timestamp / 1000 > _unix_time())


def _list_of_moto_modules() -> tuple[str, ...]:
    return _MOTO_MODULES


def _serialised_dynamodb_call(self: DynamoHandler) -> Any:
    """One DynamoDB request at a time, each complete before the next reads the tables."""
    with _DYNAMODB_LOCK:
        return _DYNAMODB_CALL_ACTION(self)


def _locked_delete_message(self: models.Queue, receipt_handle: str) -> None:
    """moto's delete, holding the lock its sends append under."""
    with self._messages_lock:
        _SQS_DELETE_MESSAGE(self, receipt_handle)


def apply() -> None:
    """Patch moto in this process (idempotent)."""
    backends.list_of_moto_modules = _list_of_moto_modules
    models.unix_time = _unix_time  # type: ignore[attr-defined]  # moto.core.utils's, imported there
    models.unix_time_millis = _unix_time_millis  # type: ignore[attr-defined]  # as unix_time
    models.SQSBackend.is_message_valid_based_on_retention_period = (  # type: ignore[method-assign]
        _is_message_valid_based_on_retention_period
    )
    DynamoHandler.call_action = _serialised_dynamodb_call  # type: ignore[method-assign]
    models.Queue.delete_message = _locked_delete_message  # type: ignore[method-assign]
