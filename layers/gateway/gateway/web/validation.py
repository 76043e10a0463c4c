"""Translation of request validation failures into the documented error codes.

Each failure names its field and echoes the offending value, bounded: secrets are never
echoed, nor objects or arrays, and long strings (in values and in field names, which may hold
a dict key) are cut to 200 characters with a marker (``gateway.errors.bounded``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from gateway.errors import ApiError, bounded
from gateway.failures.codes import ErrorCode

_MAX_MESSAGE_CHARS = 500  # a message may quote the input (a dict key, say)
_SECRET_FIELDS = frozenset({"password", "secret", "token"})
_SHAPE_ERRORS = frozenset({"model_attributes_type", "dict_type", "model_type"})


def _field_name(loc: Sequence[Any]) -> str:
    parts = (
        [bounded(str(part)) for part in loc[1:]]
        if loc and loc[0] in ("body", "query", "path", "header")
        else [bounded(str(part)) for part in loc]
    )
    return ".".join(parts) or "body"


def _shown_value(field: str, error: dict[str, Any]) -> Any:
    """The offending value, never echoing secrets and never a whole body."""
    if field.rsplit(".", 1)[-1] in _SECRET_FIELDS or error.get("type") == "missing":
        return None
    value = error.get("input")
    if isinstance(value, float) and not math.isfinite(value):  # JSON cannot carry it (1e400 -> inf)
        return None
    if isinstance(value, str) and not _utf8_encodable(value):  # a lone surrogate ("\ud800")
        return None
    return bounded(value) if isinstance(value, str | int | float | bool) or value is None else None


def _utf8_encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def standard_validation_error(errors: Sequence[dict[str, Any]]) -> ApiError:
    """A standard envelope: INVALID_JSON, INVALID_REQUEST_FORMAT or VALIDATION_ERROR."""
    if any(error.get("type") == "json_invalid" for error in errors):
        return ApiError(400, ErrorCode.INVALID_JSON, "request body is not valid JSON")
    for error in errors:
        if tuple(error.get("loc", ())) == ("body",):
            if error.get("type") == "missing":
                return ApiError(400, ErrorCode.INVALID_JSON, "a JSON request body is required")
            if error.get("type") in _SHAPE_ERRORS:
                return ApiError(400, ErrorCode.INVALID_REQUEST_FORMAT, "request body must be a JSON object")
    items = []
    for error in errors:
        field = _field_name(error.get("loc", ()))
        items.append(
            {
                "field": field,
                "message": bounded(str(error.get("msg", "invalid")), _MAX_MESSAGE_CHARS),
                "value": _shown_value(field, error),
            }
        )
    summary = "; ".join(f"{item['field']}: {item['message']}" for item in items)
    return ApiError(400, ErrorCode.VALIDATION_ERROR, f"validation failed: {summary}", validation=items)
