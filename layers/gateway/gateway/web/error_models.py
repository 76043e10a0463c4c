"""The three error body shapes of ``gateway.errors``, as models for the OpenAPI document.

The bodies are built by ``gateway.errors`` (cheaply, as dicts); these models only describe
them, so generated clients parse every error into a typed object. The contract test checks
real responses against them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gateway.web.deferred import DeferredModel
from gateway.web.fields import Timestamp


class ValidationItem(DeferredModel):
    """One field that failed validation."""

    field: str = Field(
        description="Dotted path of the field, e.g. `enabled_events.0`; `body` for the whole body"
    )
    message: str
    value: str | int | float | bool | None = Field(
        description="The value refused; null for secrets, missing fields and values JSON cannot carry"
    )


class ErrorEnvelope(DeferredModel):
    """The standard error envelope. Branch on `error_code`; `error` is for people."""

    success: Literal[False]
    error: str = Field(description="Human-readable; do not match on it")
    error_code: str = Field(
        pattern=r"^[A-Z][A-Z0-9_]*$",
        description="Stable uppercase code; an unknown one is handled by its HTTP status",
    )
    timestamp: Timestamp
    validation: list[ValidationItem] = Field(
        default_factory=list, description="Only for field-level failures"
    )
    available_events: list[str] = Field(
        default_factory=list,
        description="Only when `enabled_events` names an unknown event: every valid name",
    )


class OperationErrorDetail(DeferredModel):
    code: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="Stable lowercase code")
    message: str = Field(description="Human-readable; do not match on it")


class OperationErrorEnvelope(DeferredModel):
    """The envelope of group and status-privacy operations: `error` is an object."""

    success: Literal[False]
    error: OperationErrorDetail


class InvalidTokenError(DeferredModel):
    """Missing header, unknown token, or token of an inactive user."""

    error: Literal["Invalid token"]


class InsufficientPermissionsError(DeferredModel):
    """A valid token whose user may not do this."""

    error: Literal["Insufficient permissions"]


class MasterTokenError(DeferredModel):
    """A master-only route refused: no header or another token (401), or super admin access
    disabled by configuration (403)."""

    success: Literal[False]
    error: Literal["master token required", "invalid master token", "super admin access is disabled"]
