"""App factory shared by every API function, and the Lambda handler around it."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.dependencies.utils import solve_dependencies
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from mangum import Mangum
from starlette.exceptions import HTTPException as StarletteHTTPException

from gateway import __version__
from gateway.config import get_settings
from gateway.errors import ApiError, ShortBodyError
from gateway.failures.codes import ErrorCode
from gateway.gc_pause import cyclic_gc_paused
from gateway.observability import logger, metrics, tracer
from gateway.web.contract import DESCRIPTION, install_contract_document
from gateway.web.middleware import GatewayMiddleware
from gateway.web.operation_routes import as_answered
from gateway.web.route_table import allowed_methods
from gateway.web.validation import standard_validation_error

# FastAPI raises a bare 400 only when it cannot read a JSON body at all (nesting too deep,
# an integer past Python's digit limit, an undecodable charset): still "not valid JSON".
_HTTP_CODES = {
    400: ErrorCode.INVALID_JSON,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
    413: ErrorCode.PAYLOAD_TOO_LARGE,
}


def operation_id(route: APIRoute) -> str:
    """A route's operation id: its function's name (``register``, ``list_devices``), what
    generated clients call the operation. A test keeps them unique."""
    return route.name


async def _api_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, ApiError)
    return as_answered(request, error).response()


async def _access_refused(request: Request) -> ShortBodyError | None:
    """The refusal of the route's authentication and permission dependencies, if any.

    FastAPI reads and decodes a JSON body before it runs the route's dependencies, so a
    malformed body would be answered 400 before a missing token (401) or a missing role (403).
    Authentication comes first: on a body that cannot be read, the dependencies run without it.
    """
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return None
    try:
        async with AsyncExitStack() as stack:
            await solve_dependencies(
                request=request,
                dependant=route.dependant,
                body=None,
                async_exit_stack=stack,
                embed_body_fields=False,
            )
    except ShortBodyError as refusal:  # 401 and 403 of authentication; other refusals wait
        return refusal
    except ApiError:
        return None
    return None


async def _validation_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    if any(item.get("type") == "json_invalid" for item in error.errors()):
        refusal = await _access_refused(request)
        if refusal is not None:
            return refusal.response()
    return as_answered(request, standard_validation_error(error.errors())).response()


async def _http_error(request: Request, error: Exception) -> JSONResponse:
    """Replaces Starlette's own 404/405 pages with the standard envelope."""
    assert isinstance(error, StarletteHTTPException)
    headers = error.headers
    if error.status_code == 405:
        # Starlette names the methods of the first route matching the path only.
        allowed = allowed_methods(request.url.path)
        headers = {**(headers or {}), "Allow": ", ".join(allowed)} if allowed else headers
    if error.status_code == 400:  # the body could not be read at all
        refusal = await _access_refused(request)
        if refusal is not None:
            return refusal.response()
    code = _HTTP_CODES.get(
        error.status_code, ErrorCode.BAD_REQUEST if error.status_code < 500 else ErrorCode.INTERNAL_ERROR
    )
    message = "route not found" if error.status_code == 404 else str(error.detail)
    return as_answered(request, ApiError(error.status_code, code, message, headers=headers)).response()


def create_app(*routers: APIRouter, openapi_url: str | None = None) -> FastAPI:
    """A FastAPI app serving ``routers`` with the gateway's errors, headers and limits.

    A single function serves only its own routes, so it publishes no OpenAPI document of its
    own; the complete one is served by the platform function (and by the local app).
    """
    app = FastAPI(
        title="Messaging Gateway",
        version=__version__,
        description=DESCRIPTION,
        docs_url=None,
        redoc_url=None,
        openapi_url=openapi_url,
        generate_unique_id_function=operation_id,
    )
    for router in routers:
        app.include_router(router)
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_middleware(GatewayMiddleware, max_body_bytes=get_settings().max_body_bytes)
    install_contract_document(app)
    return app


def make_lambda_handler(app: FastAPI) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda entry point for an API function: Mangum plus Powertools context."""
    asgi_handler = Mangum(app, lifespan="off", api_gateway_base_path="/")
    first_request = True

    @logger.inject_lambda_context(clear_state=True)
    # Powertools annotates the handler this returns as Callable[..., Any].
    @tracer.capture_lambda_handler(capture_response=False)  # type: ignore[untyped-decorator]
    @metrics.log_metrics
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        nonlocal first_request
        if not first_request:
            return asgi_handler(event, context)
        first_request = False
        with cyclic_gc_paused():  # the first request builds its routes and clients: gateway/gc_pause.py
            return asgi_handler(event, context)

    return handler
