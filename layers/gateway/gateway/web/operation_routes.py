"""Routes whose every error is in the lowercase operation envelope ``{success, error: {code,
message}}``: the group operations, as the decisions require, validation failures included.
(The status-privacy routes answer their operation's errors lowercase too, but a field that
fails validation there is the standard ``VALIDATION_ERROR``: they are plain routes raising
``OperationError``, see ``gateway.failures.table``.)

A router of such routes is declared ``APIRouter(route_class=OperationRoute)``. The app's
exception handlers (``gateway.web.app``) pass each error through :func:`as_answered`, which
rewrites the standard errors these routes can meet (the device of the request, a body that
cannot be read or validated) into their lowercase codes. Authentication keeps its short
bodies, and what the middleware answers for any route (413, the last-resort 500) stays
standard: neither depends on the route.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from fastapi import Request
from fastapi.routing import APIRoute

from gateway.errors import ApiError, OperationError, ShortBodyError
from gateway.failures.codes import ErrorCode
from gateway.groups.codes import OperationCode
from gateway.web.error_docs import operation

LOWERCASE: Mapping[str, str] = MappingProxyType(
    {
        ErrorCode.INVALID_JSON: OperationCode.INVALID_REQUEST,
        ErrorCode.INVALID_REQUEST_FORMAT: OperationCode.INVALID_REQUEST,
        ErrorCode.VALIDATION_ERROR: OperationCode.INVALID_REQUEST,
        ErrorCode.DEVICE_NOT_FOUND: OperationCode.DEVICE_NOT_FOUND,
        ErrorCode.DEVICE_ID_REQUIRED: OperationCode.DEVICE_ID_REQUIRED,
    }
)
"""Standard codes an operation route may meet before its handler runs, and what it answers
instead. Any other standard error is left as it is (a test of the contract would show it)."""


class OperationRoute(APIRoute):
    """A route answering its errors in the lowercase operation envelope (see the module)."""


def is_operation_route(request: Request) -> bool:
    return isinstance(request.scope.get("route"), OperationRoute)


def as_answered(request: Request, error: ApiError) -> ApiError:
    """``error`` as the route of ``request`` answers it: lowercase on an operation route."""
    if isinstance(error, OperationError | ShortBodyError) or not is_operation_route(request):
        return error
    code = LOWERCASE.get(error.code)
    if code is None:
        return error
    return OperationError(error.status, code, error.message, headers=error.headers)


ACTING_DEVICE_ANSWERS = (
    operation(400, OperationCode.INVALID_REQUEST, OperationCode.DEVICE_ID_REQUIRED),
    operation(404, OperationCode.DEVICE_NOT_FOUND),
)
"""What an operation route acting through the request's device answers before its handler:
a body or parameter that does not validate, and the rules of ``X-Device-Id``, lowercase."""
