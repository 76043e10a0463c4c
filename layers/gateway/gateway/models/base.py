"""What every model shares: region and table name from the settings, and one DynamoDB client."""

from __future__ import annotations

from functools import lru_cache

import botocore.session
from pynamodb.connection import Connection, TableConnection
from pynamodb.exceptions import TransactWriteError
from pynamodb.models import Model

from gateway import aws
from gateway.config import get_settings

MAX_RETRY_ATTEMPTS = 3


def table_meta(table_setting: str) -> type:
    """A PynamoDB ``Meta`` class for the table named by ``table_setting``."""
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
    costing more than the request's DynamoDB calls. Every model uses the client of
    :func:`transaction_connection` instead (same region, retries and timeouts).
    """

    class Meta:
        abstract = True

    @classmethod
    def _get_connection(cls) -> TableConnection:
        connection = super()._get_connection()
        connection.connection._client = transaction_connection().client
        return connection


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
