"""What every model shares: region and table name from the settings."""

from __future__ import annotations

from functools import lru_cache

from pynamodb.connection import Connection
from pynamodb.exceptions import TransactWriteError
from pynamodb.models import Model

from gateway.config import get_settings


def table_meta(table_setting: str) -> type:
    """A PynamoDB ``Meta`` class for the table named by ``table_setting``."""
    settings = get_settings()

    class Meta:
        table_name = getattr(settings, table_setting)
        region = settings.aws_region
        max_retry_attempts = 3

    return Meta


class GatewayModel(Model):
    """Base with a marker so tooling can find every table model."""

    class Meta:
        abstract = True


class TenantGone(Exception):
    """A write counted on a tenant that was deleted meanwhile: nothing can be added to it."""


@lru_cache(maxsize=1)
def transaction_connection() -> Connection:
    """One connection for every transaction: creating one builds a botocore session and client,
    which costs more than the transaction itself. Shared like the models' own connections."""
    return Connection(region=get_settings().aws_region)


def failed_conditions(error: TransactWriteError) -> list[bool]:
    """For each item of a cancelled transaction, in order, whether its condition failed."""
    reasons = error.cancellation_reasons or []
    return [reason is not None and reason.code == "ConditionalCheckFailed" for reason in reasons]
