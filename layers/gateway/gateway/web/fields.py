"""Field types shared by request and response models, each saying in the OpenAPI document what
the server does with it."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

Timestamp = Annotated[
    str, Field(json_schema_extra={"format": "date-time"}, examples=["2026-11-22T10:00:00.000Z"])
]
"""RFC 3339 UTC with milliseconds and ``Z``, as ``gateway.timestamps.iso_utc`` writes it."""

Uuid = Annotated[str, Field(json_schema_extra={"format": "uuid"})]
"""An id the gateway generated: a lowercase UUID string."""
