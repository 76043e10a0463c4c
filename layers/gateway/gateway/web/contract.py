"""The OpenAPI document as the gateway's contract: FastAPI's document, without what the
gateway never answers, and with what applies to every route said once.

FastAPI adds ``422 HTTPValidationError`` to every operation with parameters; the gateway
answers 400 with its own envelope instead (``gateway.web.validation``), documented per route
by ``gateway.web.error_docs``. Those 422s and their schemas are removed here, in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

DESCRIPTION = """\
Multi-tenant HTTP/JSON gateway to a messaging network.

**Authentication.** `Authorization: Bearer <token>` (the scheme word in any case, or the bare
token alone). Tenant routes take a user's token (security scheme `UserToken`); POST /register,
GET /tenants and GET/DELETE /global/tenants/{tenant_id} take the platform's master token
(`MasterToken`), and so does the local simulator's control API.

**Errors.** Each operation lists the errors it answers with their bodies: the standard envelope
`{success: false, error, error_code, timestamp, validation?}` (the `x-error-codes` of a
response list its `error_code` values; branch on the code, then on the status), the lowercase
envelope `{success: false, error: {code, message}}` of group and status-privacy operations,
and the short authentication bodies. The gateway never answers 422: invalid input is 400.
Not listed per operation, because they concern no operation: an unknown route is 404
`NOT_FOUND`, a known path with another method 405 `METHOD_NOT_ALLOWED` (with `Allow`); the
local HTTP server also answers 408 `REQUEST_TIMEOUT`, 431 `HEADERS_TOO_LARGE` and 504
`GATEWAY_TIMEOUT` (API Gateway applies its own limits).

**Versioning.** Every response carries `X-Gateway-Version` and `X-Request-Id`. Changes within a
major version are additive: clients must accept fields and error codes they do not know.
"""

_FRAMEWORK_SCHEMAS = ("HTTPValidationError", "ValidationError")


def install_contract_document(app: FastAPI) -> None:
    """Make ``app.openapi()`` return the contract document (generated once, then cached)."""
    generate: Callable[[], dict[str, Any]] = app.openapi

    def contract_document() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = without_422(generate())
        return app.openapi_schema

    app.openapi = contract_document  # type: ignore[method-assign]


def without_422(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` without FastAPI's 422 responses and the schemas only they use."""
    for path_item in document.get("paths", {}).values():
        for operation in path_item.values():
            operation.get("responses", {}).pop("422", None)
    schemas = document.get("components", {}).get("schemas", {})
    for name in _FRAMEWORK_SCHEMAS:
        schemas.pop(name, None)
    return document
