"""Configuration, read from the environment and validated once, in one place.

Every component calls :func:`get_settings`; nothing else reads ``os.environ``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class Settings(BaseModel):
    """Deployment settings. Names are the environment variables, upper-cased.

    A pydantic model validated from ``os.environ`` (:func:`get_settings`): these flat fields
    need nothing of pydantic-settings, whose import every cold start would pay (its cost:
    bench/README.md, "Figures the code's choices rest on").
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    aws_region: str = Field(default="us-east-1", alias="AWS_REGION")
    local_mode: bool = Field(default=False, alias="GATEWAY_LOCAL_MODE")

    tenants_table: str = Field(default="gateway-tenants", alias="TENANTS_TABLE")
    users_table: str = Field(default="gateway-users", alias="USERS_TABLE")
    tokens_table: str = Field(default="gateway-tokens", alias="TOKENS_TABLE")
    unique_keys_table: str = Field(default="gateway-unique-keys", alias="UNIQUE_KEYS_TABLE")
    devices_table: str = Field(default="gateway-devices", alias="DEVICES_TABLE")
    webhooks_table: str = Field(default="gateway-webhooks", alias="WEBHOOKS_TABLE")
    deliveries_table: str = Field(default="gateway-deliveries", alias="DELIVERIES_TABLE")
    leases_table: str = Field(default="gateway-leases", alias="LEASES_TABLE")
    sends_table: str = Field(default="gateway-sends", alias="SENDS_TABLE")
    idempotency_table: str = Field(default="gateway-idempotency", alias="IDEMPOTENCY_TABLE")
    chats_table: str = Field(default="gateway-chats", alias="CHATS_TABLE")

    command_queue_url: str = Field(default="", alias="COMMAND_QUEUE_URL")
    events_queue_url: str = Field(default="", alias="EVENTS_QUEUE_URL")
    # The slow lane's queue: events of configurations marked slow (docs/delivery.md).
    slow_events_queue_url: str = Field(default="", alias="SLOW_EVENTS_QUEUE_URL")
    # Outbound and received media bytes (docs/media.md); the local stack points it at moto's S3.
    media_bucket: str = Field(default="gateway-media", alias="MEDIA_BUCKET")
    # Per-host command queues and per-process reply queues are created at run time under this
    # name prefix (the template grants exactly ``<prefix>-*``).
    dynamic_queue_prefix: str = Field(
        default="gateway-dq", alias="DYNAMIC_QUEUE_PREFIX", pattern=r"^[A-Za-z0-9_-]{1,60}$"
    )
    # How long an API function waits for the session host's answer before 503 SERVICE_UNAVAILABLE.
    command_timeout_seconds: float = Field(default=10.0, alias="COMMAND_TIMEOUT_SECONDS", gt=0, le=25)
    # How long POST /send/* holds the request open for the dispatch before answering 202
    # ``scheduled``: API Gateway gives up after 30 s, so 25 behind it; the local stack sets 110.
    # The function's timeout must exceed it (template.yaml).
    send_hold_seconds: float = Field(default=25.0, alias="SEND_HOLD_SECONDS", gt=0, le=900)

    master_token: SecretStr | None = Field(default=None, alias="MASTER_TOKEN")
    master_token_secret_arn: str | None = Field(default=None, alias="MASTER_TOKEN_SECRET_ARN")
    super_admin_enabled: bool = Field(default=True, alias="SUPER_ADMIN_ENABLED")

    allow_http_webhooks: bool = Field(default=False, alias="ALLOW_HTTP_WEBHOOKS")
    max_body_bytes: int = Field(default=24 * 1024 * 1024, alias="MAX_BODY_BYTES", gt=0)
    network_adapter: Literal["simulated", "neonize"] = Field(default="simulated", alias="NETWORK_ADAPTER")

    @property
    def http_urls_allowed(self) -> bool:
        """Whether plain-HTTP URLs are taken (webhooks, and the media sends fetch): where the
        deployment allows them (``ALLOW_HTTP_WEBHOOKS``, given to the functions and the session
        host alike), and in local mode."""
        return self.allow_http_webhooks or self.local_mode


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, validated on first use."""
    return Settings.model_validate(dict(os.environ))


class TracingSettings(BaseModel):
    """Where Powertools' Tracer traces (its documented rule), from the variables the Lambda
    runtime, ``sam local`` and the deployment set.

    Apart from :class:`Settings` and read each time: the tracer is made as
    ``gateway.observability`` is imported, before the local stack sets its own variables, and
    reading :func:`get_settings` then would keep the settings of the environment before it.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    lambda_task_root: str | None = Field(default=None, alias="LAMBDA_TASK_ROOT")
    sam_local: bool = Field(default=False, alias="AWS_SAM_LOCAL")
    trace_disabled: bool = Field(default=False, alias="POWERTOOLS_TRACE_DISABLED")

    @property
    def traced(self) -> bool:
        """Whether X-Ray tracing is on: in Lambda, not under ``sam local``, not turned off."""
        return self.lambda_task_root is not None and not self.sam_local and not self.trace_disabled


def tracing_settings() -> TracingSettings:
    """The tracing settings of the environment as it is now."""
    return TracingSettings.model_validate(dict(os.environ))
