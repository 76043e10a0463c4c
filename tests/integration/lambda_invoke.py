"""Helpers of the handler tests: which function serves each sample event of ``events/``, and
invoking that function's real Lambda entry point the way ``sam local invoke`` does."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from devices_api.handler import handler as devices_handler
from local_stack.sample_events import load_event
from messages_api.handler import handler as messages_handler
from platform_api.handler import handler as platform_handler
from users_api.handler import handler as users_handler
from webhooks_api.handler import handler as webhooks_handler

PLACEHOLDERS = (
    "REPLACE_WITH_MASTER_TOKEN",
    "REPLACE_WITH_USER_TOKEN",
    "REPLACE_WITH_TENANT_ID",
    "REPLACE_WITH_USER_ID",
    "REPLACE_WITH_DEVICE_ID",
)

# API Gateway sample event -> the function it is sent to (the same table is in events/README.md).
EVENT_FUNCTIONS = {
    "register": "PlatformFunction",
    "tenants-list": "PlatformFunction",
    "tenant-get": "PlatformFunction",
    "tenant-delete": "PlatformFunction",
    "unknown-route": "PlatformFunction",
    "users-create": "UsersFunction",
    "users-list": "UsersFunction",
    "user-get": "UsersFunction",
    "user-update": "UsersFunction",
    "status": "UsersFunction",
    "devices-create": "DevicesFunction",
    "devices-list": "DevicesFunction",
    "device-get": "DevicesFunction",
    "webhook-configure": "WebhooksFunction",
    "webhook-events": "WebhooksFunction",
    "webhook-deliveries": "WebhooksFunction",
    "messages-read": "MessagesFunction",
    "send-text": "MessagesFunction",
}
# The SQS sample of the events queue, sent to the webhook delivery function (not through API Gateway).
DELIVERY_SAMPLE = "webhook-delivery-sqs"
HANDLERS: dict[str, Callable[[dict[str, Any], Any], dict[str, Any]]] = {
    "PlatformFunction": platform_handler,
    "UsersFunction": users_handler,
    "DevicesFunction": devices_handler,
    "WebhooksFunction": webhooks_handler,
    "MessagesFunction": messages_handler,
}


@dataclass
class FakeLambdaContext:
    """The attributes of the Lambda context object that Powertools and Mangum read."""

    function_name: str
    memory_limit_in_mb: int = 512
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:us-east-1:123456789012:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


@dataclass
class Response:
    status: int
    headers: dict[str, str]  # lower-case names
    body: Any
    event: dict[str, Any]


@dataclass
class RegisteredTenant:
    id: str
    name: str
    admin_id: str
    admin_token: str


def _main_thread_loop() -> None:
    """Give the main thread a current event loop, as a Lambda process has (Mangum made one at
    import). A test of this process that ran ``asyncio.run`` left the thread without one, and
    Mangum's HTTP cycle would fail with "no current event loop"."""
    try:
        asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        asyncio.set_event_loop(asyncio.new_event_loop())


def invoke(name: str, event: dict[str, Any]) -> Response:
    """Invoke the handler of the function that serves sample event ``name``."""
    function = EVENT_FUNCTIONS[name]
    _main_thread_loop()
    result = HANDLERS[function](event, FakeLambdaContext(function_name=function))
    headers = {key.lower(): value for key, value in result.get("headers", {}).items()}
    assert result.get("isBase64Encoded") is False
    assert headers.get("content-type") == "application/json"
    # Every response carries API Gateway's request id, so client reports and logs join up.
    assert headers.get("x-request-id") == event["requestContext"]["requestId"]
    return Response(result["statusCode"], headers, json.loads(result["body"]), event)


def register_tenant(master_token: str) -> RegisteredTenant:
    """A new tenant made with register.json; its admin's token comes back."""
    name = f"lambda-{uuid.uuid4().hex[:12]}"
    body = {"tenant_name": name, "email": f"admin@{name}.example.com", "password": "secret123"}
    response = invoke("register", load_event("register", body=body, master_token=master_token))
    assert response.status == 201, response.body
    return RegisteredTenant(
        response.body["tenant"]["id"], name, response.body["user"]["id"], response.body["token"]
    )
