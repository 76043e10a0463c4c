"""Pure ASGI middleware: request ids, version header, body limit, last-resort errors.

Pure ASGI (not ``BaseHTTPMiddleware``) so the body streams through untouched and the
cost per request stays a few function calls.
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway import __version__
from gateway.errors import ApiError, internal_error
from gateway.failures.codes import ErrorCode
from gateway.observability import logger

REQUEST_ID_HEADER = b"x-request-id"
VERSION_HEADER = b"x-gateway-version"


class PayloadTooLarge(HTTPException):
    """The request body grew past the configured limit while it was being read.

    An HTTPException, because FastAPI turns any other error raised while it reads a body
    into a 400; this one it re-raises, and the app answers it 413 PAYLOAD_TOO_LARGE.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body exceeds {limit} bytes")


def _request_id(scope: Scope) -> str:
    """API Gateway's request id when behind it (so logs join up), else a fresh UUID."""
    event: dict[str, Any] = scope.get("aws.event") or {}
    return event.get("requestContext", {}).get("requestId") or str(uuid.uuid4())


def _too_large(limit: int) -> ApiError:
    return ApiError(413, ErrorCode.PAYLOAD_TOO_LARGE, f"request body exceeds {limit} bytes")


class GatewayMiddleware:
    """Outermost app middleware.

    Adds ``X-Request-Id`` and ``X-Gateway-Version`` to every response, puts the request id
    in every log line of the request, refuses bodies over ``max_body_bytes`` with 413, and
    turns any unhandled exception into a 500 envelope without a stack trace.
    """

    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        extra_headers = [(REQUEST_ID_HEADER, request_id.encode()), (VERSION_HEADER, __version__.encode())]
        response_started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
                message["headers"] = [*message.get("headers", []), *extra_headers]
            await send(message)

        declared = _content_length(scope)
        logger.thread_safe_append_keys(request_id=request_id)
        try:
            if declared is not None and declared > self.max_body_bytes:
                await _too_large(self.max_body_bytes).response()(scope, receive, send_with_headers)
                return
            await self.app(scope, self._limited(receive), send_with_headers)
        except PayloadTooLarge:
            if not response_started:
                await _too_large(self.max_body_bytes).response()(scope, receive, send_with_headers)
        except ApiError as error:  # raised by an outer receive wrapper (read deadline)
            if not response_started:
                await error.response()(scope, receive, send_with_headers)
        except Exception:
            logger.exception("unhandled error", extra={"path": scope.get("path")})
            if not response_started:
                await internal_error().response()(scope, receive, send_with_headers)
        finally:
            logger.thread_safe_remove_keys(["request_id"])

    def _limited(self, receive: Receive) -> Receive:
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise PayloadTooLarge(self.max_body_bytes)
            return message

        return limited_receive


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
