"""Every error body the gateway sends, produced in one place.

Three shapes exist, as the specification requires:

* the standard envelope ``{success, error, error_code, timestamp, validation?}``;
* the group and status-privacy envelope ``{success, error: {code, message}}`` with lowercase codes;
* the short authentication bodies (``{error: "Invalid token"}`` and the master-token bodies).

Handlers raise :class:`ApiError` subclasses; the app turns them into responses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import JSONResponse

from gateway.failures.codes import ErrorCode
from gateway.timestamps import iso_utc


class ApiError(Exception):
    """An error answered with the standard envelope."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        validation: list[dict[str, Any]] | None = None,
        extra: dict[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.validation = validation
        self.extra = extra or {}
        self.headers = headers

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "success": False,
            "error": self.message,
            "error_code": self.code,
            "timestamp": iso_utc(),
        }
        if self.validation is not None:
            body["validation"] = self.validation
        body.update(self.extra)
        return body

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


class OperationError(ApiError):
    """An error of the group and status-privacy operations: ``error`` is ``{code, message}``."""

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"success": False, "error": {"code": self.code, "message": self.message}}
        body.update(self.extra)
        return body


class ShortBodyError(ApiError):
    """Authentication errors, whose bodies the specification fixes exactly."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(status, "AUTH", str(body.get("error")))
        self._body = body

    def body(self) -> dict[str, Any]:
        return dict(self._body)


def internal_error() -> ApiError:
    """The last-resort 500: what failed is in the logs, under the request's id."""
    return ApiError(500, ErrorCode.INTERNAL_ERROR, "internal error; quote the X-Request-Id when reporting")


def invalid_token() -> ShortBodyError:
    return ShortBodyError(401, {"error": "Invalid token"})


def insufficient_permissions() -> ShortBodyError:
    return ShortBodyError(403, {"error": "Insufficient permissions"})


def master_token_required() -> ShortBodyError:
    return ShortBodyError(401, {"success": False, "error": "master token required"})


def invalid_master_token() -> ShortBodyError:
    return ShortBodyError(401, {"success": False, "error": "invalid master token"})


def super_admin_disabled() -> ShortBodyError:
    return ShortBodyError(403, {"success": False, "error": "super admin access is disabled"})


def not_found(code: str, message: str) -> ApiError:
    return ApiError(404, code, message)


def conflict(code: str, message: str) -> ApiError:
    return ApiError(409, code, message)


MAX_ECHOED_CHARS = 200
TRUNCATION_MARKER = "…[truncated]"


def bounded(value: Any, limit: int = MAX_ECHOED_CHARS) -> Any:
    """``value`` as an error may echo it: a string longer than ``limit`` is cut to that many
    characters followed by :data:`TRUNCATION_MARKER`, so a huge field is never sent back whole."""
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + TRUNCATION_MARKER
    return value


def validation_error(field: str, message: str, value: Any = None) -> ApiError:
    field = bounded(field)
    return ApiError(
        400,
        ErrorCode.VALIDATION_ERROR,
        f"{field}: {message}",
        validation=[{"field": field, "message": message, "value": bounded(value)}],
    )
