"""A Lambda context and an HTTP API event, for calling a handler made by ``make_lambda_handler``."""

from __future__ import annotations

from types import SimpleNamespace

CONTEXT = SimpleNamespace(
    function_name="TestFunction",
    memory_limit_in_mb=512,
    invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:TestFunction",
    aws_request_id="00000000-0000-4000-8000-000000000000",
)


def http_api_event(path: str) -> dict[str, object]:
    """A GET of ``path`` as API Gateway's HTTP API hands it to a function."""
    return {
        "version": "2.0",
        "routeKey": f"GET {path}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"host": "example.test"},
        "requestContext": {
            "http": {"method": "GET", "path": path, "protocol": "HTTP/1.1", "sourceIp": "192.0.2.1"},
            "requestId": "r",
            "stage": "$default",
        },
        "isBase64Encoded": False,
    }
