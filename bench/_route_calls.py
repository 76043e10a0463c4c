"""The AWS calls of every platform and users route, through their real Lambda handlers.

Part 1 of ``bench.coldstart``: each route is handled once in this process while every botocore
call and client creation is counted, and a user-token request must authenticate with exactly
one DynamoDB read. The sample events of ``events/`` and the helpers that call a handler are
here too, for the cold-start probes' setup.
"""

from __future__ import annotations

import json
import time
import uuid
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from local_stack.sample_events import load_event as load_sample_event

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]

# --- events ----------------------------------------------------------------------------------


def load_event(name: str, body: dict[str, Any] | None = None, **values: str) -> dict[str, Any]:
    """A sample event with a fresh request id, so every bench request is told apart."""
    event = load_sample_event(name, body, **values)
    event["requestContext"]["requestId"] = uuid.uuid4().hex[:16]
    return event


def context(function_name: str) -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(
        function_name=function_name,
        memory_limit_in_mb=512,
        invoked_function_arn=f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}",
        aws_request_id=str(uuid.uuid4()),
    )


def call(handler: Handler, function_name: str, event: dict[str, Any], expected: int) -> dict[str, Any]:
    return answered(handler(event, context(function_name)), expected, event["routeKey"])


def answered(response: dict[str, Any], expected: int, request: str = "request") -> dict[str, Any]:
    """A handler's JSON body, once its status is the one expected (a bench stops otherwise)."""
    if response["statusCode"] != expected:
        raise RuntimeError(
            f"{request}: expected {expected}, got {response['statusCode']}: {response['body']}"
        )
    return json.loads(response["body"])


# --- AWS calls per route ---------------------------------------------------------------------


@dataclass
class AwsCall:
    service: str
    operation: str
    tables: tuple[str, ...]
    consistent_read: bool | None


@dataclass
class AwsCallCounter:
    """Every botocore API call of this process, and every botocore client created."""

    table_ids: dict[str, str]  # physical table name -> template logical id
    calls: list[AwsCall] = field(default_factory=list)
    clients_created: int = 0
    client_ms: float = 0.0  # time spent creating botocore clients

    def _table(self, name: str) -> str:
        return self.table_ids.get(name, name).removesuffix("Table")

    def _tables(self, operation: str, params: dict[str, Any]) -> tuple[str, ...]:
        if "TableName" in params:
            return (self._table(params["TableName"]),)
        if operation in ("TransactWriteItems", "TransactGetItems"):
            return tuple(
                self._table(request["TableName"])
                for item in params.get("TransactItems", [])
                for request in item.values()
            )
        if "RequestItems" in params:
            return tuple(self._table(name) for name in params["RequestItems"])
        return ()

    @contextmanager
    def installed(self) -> Iterator[AwsCallCounter]:
        import botocore.client
        import botocore.session

        make_api_call = botocore.client.BaseClient._make_api_call
        create_client = botocore.session.Session.create_client
        counter = self

        def counting_api_call(client: Any, operation: str, params: dict[str, Any]) -> Any:
            counter.calls.append(
                AwsCall(
                    client.meta.service_model.service_name,
                    operation,
                    counter._tables(operation, params),
                    params.get("ConsistentRead"),
                )
            )
            return make_api_call(client, operation, params)

        def counting_create_client(session: Any, *args: Any, **kwargs: Any) -> Any:
            counter.clients_created += 1
            started = time.perf_counter()
            try:
                return create_client(session, *args, **kwargs)
            finally:
                counter.client_ms += (time.perf_counter() - started) * 1000

        with (
            mock.patch.object(botocore.client.BaseClient, "_make_api_call", counting_api_call),
            mock.patch.object(botocore.session.Session, "create_client", counting_create_client),
        ):
            yield self

    @contextmanager
    def measuring(self) -> Iterator[RouteCalls]:
        first_call, first_client, client_ms = len(self.calls), self.clients_created, self.client_ms
        route = RouteCalls()
        started = time.perf_counter()
        yield route
        route.elapsed_ms = (time.perf_counter() - started) * 1000
        route.calls = self.calls[first_call:]
        route.clients_created = self.clients_created - first_client
        route.client_ms = self.client_ms - client_ms


@dataclass
class RouteCalls:
    calls: list[AwsCall] = field(default_factory=list)
    clients_created: int = 0
    client_ms: float = 0.0
    elapsed_ms: float = 0.0

    def summary(self) -> str:
        counts = Counter(
            f"{call.operation} {'+'.join(sorted(set(call.tables)))}".strip()
            + (f" ({len(call.tables)} items)" if call.operation.startswith("Transact") else "")
            for call in self.calls
            if call.service == "dynamodb"
        )
        return ", ".join(f"{n}x {what}" for what, n in counts.items()) or "-"

    def dynamodb_calls(self) -> int:
        return sum(call.service == "dynamodb" for call in self.calls)

    def other_calls(self) -> list[str]:
        return [f"{call.service}:{call.operation}" for call in self.calls if call.service != "dynamodb"]

    def token_reads(self) -> list[AwsCall]:
        return [
            call
            for call in self.calls
            if call.service == "dynamodb"
            and "Tokens" in call.tables
            and call.operation in ("GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems")
        ]


@dataclass
class Setup:
    master_token: str
    admin_token: str
    tenant_id: str
    device_id: str


def count_route_calls(counter: AwsCallCounter, master_token: str) -> Setup:
    """Each platform and users route once, through its real handler, counting AWS calls."""
    from devices_api.handler import handler as devices_handler
    from gateway.observability import logger
    from platform_api.handler import handler as platform_handler
    from users_api.handler import handler as users_handler

    # Keep this table readable: the functions' INFO lines and Powertools' per-invocation warning
    # about publishing no metric would interleave with it (the probes keep the defaults).
    logger.setLevel("WARNING")
    warnings.filterwarnings("ignore", "No application metrics to publish", UserWarning)

    pf, uf, df = "PlatformFunction", "UsersFunction", "DevicesFunction"
    rows: list[tuple[str, str, RouteCalls]] = []  # (route, auth kind, calls)
    name = f"bench-{uuid.uuid4().hex[:8]}"

    def measured(route: str, auth: str, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        with counter.measuring() as calls:
            body = run()
        rows.append((route, auth, calls))
        return body

    # Platform: register (the first request of this process) gives the tenant and admin token.
    register = load_event(
        "register",
        body={"tenant_name": name, "email": f"admin@{name}.example.com", "password": "secret123"},
        master_token=master_token,
    )
    registered = measured("POST /register", "master", lambda: call(platform_handler, pf, register, 201))
    token, tenant_id = registered["token"], registered["tenant"]["id"]

    # Users: every route with the admin's token.
    create = load_event("users-create", user_token=token)
    created = measured("POST /users", "user", lambda: call(users_handler, uf, create, 201))["user"]
    user_id = created["id"]
    listing = load_event("users-list", user_token=token)
    measured("GET /users", "user", lambda: call(users_handler, uf, listing, 200))
    get = load_event("user-get", user_token=token, user_id=user_id)
    measured("GET /users/{user_id}", "user", lambda: call(users_handler, uf, get, 200))
    update = load_event("user-update", user_token=token, user_id=user_id)
    measured("PUT /users/{user_id}", "user", lambda: call(users_handler, uf, update, 200))
    status = load_event("status", user_token=token)
    measured("GET /status", "user", lambda: call(users_handler, uf, status, 200))
    # A device for the messages and groups cold starts (created, never connected).
    create_device = load_event("devices-create", user_token=token)
    device = measured("POST /devices", "user", lambda: call(devices_handler, df, create_device, 201))

    # Platform administration, while the tenant above is the only one.
    tenants = load_event("tenants-list", master_token=master_token)
    measured("GET /tenants (1 tenant)", "master", lambda: call(platform_handler, pf, tenants, 200))
    tenant = load_event("tenant-get", master_token=master_token, tenant_id=tenant_id)
    measured("GET /global/tenants/{tenant_id}", "master", lambda: call(platform_handler, pf, tenant, 200))
    doomed_name = f"bench-doomed-{uuid.uuid4().hex[:8]}"
    doomed = call(
        platform_handler,
        pf,
        load_event(
            "register",
            body={
                "tenant_name": doomed_name,
                "email": f"a@{doomed_name}.example.com",
                "password": "secret123",
            },
            master_token=master_token,
        ),
        201,
    )
    delete = load_event("tenant-delete", master_token=master_token, tenant_id=doomed["tenant"]["id"])
    measured(
        "DELETE /global/tenants/{tenant_id} (1 user)",
        "master",
        lambda: call(platform_handler, pf, delete, 200),
    )
    unknown = load_event("unknown-route", user_token=token)
    measured("$default GET /does-not-exist", "none", lambda: call(platform_handler, pf, unknown, 404))

    print_route_calls(rows)
    return Setup(master_token, token, tenant_id, device["device"]["id"])


def print_route_calls(rows: list[tuple[str, str, RouteCalls]]) -> None:
    print("\nAWS calls per route (one request each, real Lambda handlers, in one process)")
    width = max(len(route) for route, _, _ in rows)
    print(
        f"  {'route':<{width}}  {'auth':<6}  {'ddb':>3}  {'ms':>5}  {'clients (ms)':>12}  "
        "DynamoDB calls (operation table)"
    )
    for route, auth, calls in rows:
        other = calls.other_calls()
        clients = f"{calls.clients_created} ({calls.client_ms:.0f})"
        line = (
            f"  {route:<{width}}  {auth:<6}  {calls.dynamodb_calls():>3}  {calls.elapsed_ms:>5.0f}  "
            f"{clients:>12}  {calls.summary()}"
        )
        print(line + (f"; other AWS: {', '.join(other)}" if other else ""))
    problems = []
    for route, auth, calls in rows:
        reads = calls.token_reads()
        if auth == "user":
            first = calls.calls[0] if calls.calls else None
            ok = (
                len(reads) == 1
                and reads[0].operation == "GetItem"
                and reads[0].consistent_read is True
                and first is reads[0]
            )
            if not ok:
                problems.append(f"{route}: token reads {[(r.operation, r.consistent_read) for r in reads]}")
        elif reads:
            problems.append(f"{route}: {len(reads)} token-table reads on a {auth} route")
    user_routes = sum(auth == "user" for _, auth, _ in rows)
    if problems:
        print("  authentication reads: FAILED\n    " + "\n    ".join(problems))
        raise SystemExit(1)
    print(
        f"  authentication: OK - each of the {user_routes} user-token requests made exactly one DynamoDB "
        "read to authenticate, first, a consistent GetItem on the tokens table.\n"
        "  master-token routes read no table to authenticate (locally MASTER_TOKEN; on AWS one Secrets "
        "Manager GetSecretValue per container, then cached).\n"
        "  ms: whole request against moto (POST /register and POST /users include a ~40 ms scrypt hash);\n"
        "  clients (ms): botocore clients created during the request, and the time spent creating them."
    )
