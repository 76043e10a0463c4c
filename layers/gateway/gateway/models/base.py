"""What every model shares: region and table name from the settings."""

from __future__ import annotations

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
