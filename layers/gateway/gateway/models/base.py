"""What every model shares: region and table name from the settings, and one DynamoDB client."""

from __future__ import annotations

import contextlib
from functools import lru_cache
from typing import Any

import botocore.session
from pynamodb.attributes import Attribute
from pynamodb.connection import Connection, TableConnection
from pynamodb.exceptions import TransactWriteError
from pynamodb.models import Model

from gateway import aws
from gateway.config import get_settings

MAX_RETRY_ATTEMPTS = 3


def table_meta(table_setting: str) -> Any:
    """A PynamoDB ``Meta`` class for the table named by ``table_setting``.

    Typed ``Any``: PynamoDB declares ``Model.Meta`` as an instance of its ``MetaProtocol``, while a
    model's ``Meta`` is a class of settings, which no annotation of both can describe."""
    settings = get_settings()

    class Meta:
        table_name = getattr(settings, table_setting)
        region = settings.aws_region
        max_retry_attempts = MAX_RETRY_ATTEMPTS

    return Meta


class GatewayModel(Model):
    """Base of every table model: a marker for tooling, and the process's one DynamoDB client.

    PynamoDB would give each model class a connection with a botocore session and client of
    its own, made on the model's first use: 1-4 of them on a function's first request, each
    costing more than the request's DynamoDB calls (figures: bench/README.md, "Figures the
    code's choices rest on"). Every model uses the connection of :func:`transaction_connection` instead
    (same region, retries and timeouts).

    PynamoDB offers no public way to give a model a connection or a session (its open issue
    pynamodb/PynamoDB#876), so this overrides the one place it makes one, ``_get_connection``:
    the only private name of a dependency the gateway uses (``tests/unit/test_public_apis.py``
    lists it). Only public attributes of what it returns are changed.
    """

    class Meta:
        abstract = True

    @classmethod
    def _get_connection(cls) -> TableConnection:
        table = super()._get_connection()
        shared = transaction_connection()
        if table.connection is not shared:  # the model's first use: its table's schema moves along
            with contextlib.suppress(ValueError):  # known already: another model of the same table
                shared.add_meta_table(table.get_meta_table())
            table.connection = shared
        return table


def key_attributes(model: type[Model]) -> tuple[Attribute[Any], Attribute[Any] | None]:
    """A model's hash key attribute and its range key attribute (None without one)."""
    attributes = model.get_attributes().values()
    hash_key = next(attribute for attribute in attributes if attribute.is_hash_key)
    return hash_key, next((attribute for attribute in attributes if attribute.is_range_key), None)


def delete_partition(model: type[Model], hash_key: str) -> int:
    """Delete every item of one partition (a device's sends, known chats or delivery log, a
    tenant's webhook configurations): one Query of the keys, then BatchWriteItem calls of
    25; how many there were."""
    keys = [attribute.attr_name for attribute in key_attributes(model) if attribute is not None]
    items = list(model.query(hash_key, attributes_to_get=keys))
    with model.batch_write() as batch:
        for item in items:
            batch.delete(item)
    return len(items)


class TenantGone(Exception):
    """A write counted on a tenant that was deleted meanwhile: nothing can be added to it."""


class _SharedSessionConnection(Connection):
    """A PynamoDB connection whose client comes from the process's shared botocore session."""

    @property
    def session(self) -> botocore.session.Session:
        return aws.botocore_session()


@lru_cache(maxsize=1)
def transaction_connection() -> Connection:
    """The process's one PynamoDB connection: transactions use it, and every model its client."""
    connection = _SharedSessionConnection(
        region=get_settings().aws_region, max_retry_attempts=MAX_RETRY_ATTEMPTS
    )
    with aws.CLIENT_LOCK:  # made now, under the lock: one session, several threads
        _ = connection.client
    return connection


def failed_conditions(error: TransactWriteError) -> list[bool]:
    """For each item of a cancelled transaction, in order, whether its condition failed."""
    reasons = error.cancellation_reasons or []
    return [reason is not None and reason.code == "ConditionalCheckFailed" for reason in reasons]


def conflicted(error: TransactWriteError) -> bool:
    """Whether a transaction was cancelled because another one wrote one of its items at the
    same time (it may simply be tried again)."""
    reasons = error.cancellation_reasons or []
    return any(reason is not None and reason.code == "TransactionConflict" for reason in reasons)
