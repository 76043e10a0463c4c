"""GET /tenants with thousands of tenants: the first page, and walking every page.

    .venv/bin/python -m bench.tenants [--tenants 2000] [--runs 5] [--no-before]

One moto server (the template's tables, as the local stack makes them, with its moto fixes)
holds ``--tenants`` tenant records, written straight to the table with their user and device
counts (registering them would spend minutes in scrypt, which GET /tenants never runs). Each
request goes through the platform function's real Lambda handler with the master token, as
API Gateway would send it:

* **first page**: GET /tenants (default limit 50), and GET /tenants?limit=200;
* **all pages**: every page, following ``next``, at limit 50 and at limit 200.

Each figure is the median of ``--runs`` runs, with the DynamoDB calls one run made. For
comparison, **before** times once the read pattern GET /tenants had before the counts moved
onto the tenant record: a Scan of every tenant, then a COUNT Query of its users and one of
its devices, per tenant (``--no-before`` skips it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from local_stack.aws import create_resources, start_moto
from local_stack.stack import LocalStack
from local_stack.template import load_template, local_resources

PREFIX = "benchtenants"


@contextmanager
def dynamodb_calls() -> Iterator[list[str]]:
    """The DynamoDB operations botocore makes while the block runs."""
    import botocore.client

    calls: list[str] = []
    original = botocore.client.BaseClient._make_api_call

    def counting(self: Any, operation: str, params: dict[str, Any]) -> Any:
        if self.meta.service_model.service_name == "dynamodb":
            calls.append(operation)
        return original(self, operation, params)

    botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        botocore.client.BaseClient._make_api_call = original  # type: ignore[method-assign]


def seed(count: int) -> None:
    """``count`` tenants with a few users and devices each, as registration and the counts
    leave them."""
    from gateway.models import TenantModel
    from gateway.timestamps import iso_utc

    now = iso_utc()
    with TenantModel.batch_write() as batch:
        for index in range(count):
            batch.save(
                TenantModel(
                    str(uuid.uuid4()),
                    name=f"bench-tenant-{index:05d}",
                    users_count=1 + index % 7,
                    devices_count=index % 4,
                    created_at=now,
                    updated_at=now,
                )
            )


def list_page(master_token: str, query: dict[str, str]) -> dict[str, Any]:
    """GET /tenants through the platform function's handler."""
    from urllib.parse import urlencode

    from local_stack.sample_events import load_event
    from platform_api.handler import handler

    event = load_event("tenants-list", master_token=master_token)
    event["requestContext"]["requestId"] = uuid.uuid4().hex[:16]
    if query:
        event["queryStringParameters"] = query
        event["rawQueryString"] = urlencode(query)
    response = handler(event, lambda_context())
    if response["statusCode"] != 200:
        raise SystemExit(f"GET /tenants answered {response['statusCode']}: {response['body']}")
    return json.loads(response["body"])


def lambda_context() -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(
        function_name="PlatformFunction",
        memory_limit_in_mb=512,
        invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:PlatformFunction",
        aws_request_id=str(uuid.uuid4()),
    )


def first_page(master_token: str, limit: int | None) -> int:
    query = {} if limit is None else {"limit": str(limit)}
    return len(list_page(master_token, query)["tenants"])


def all_pages(master_token: str, limit: int) -> int:
    listed, cursor = 0, None
    while True:
        query = {"limit": str(limit), **({"cursor": cursor} if cursor else {})}
        body = list_page(master_token, query)
        listed += len(body["tenants"])
        cursor = body["next"]
        if cursor is None:
            return listed


def before() -> int:
    """The old read pattern: every tenant, then two COUNT queries each."""
    from gateway.models import DeviceModel, TenantModel, UserModel

    tenants = sorted(TenantModel.scan(), key=lambda tenant: tenant.created_at)
    for tenant in tenants:
        UserModel.count(tenant.tenant_id)
        DeviceModel.count(tenant.tenant_id)
    return len(tenants)


def measure(operation: Callable[[], int], runs: int) -> tuple[float, int, int]:
    """(median ms, items the operation reported, DynamoDB calls of one run)."""
    times, items, calls = [], 0, 0
    for _ in range(runs):
        with dynamodb_calls() as made:
            began = time.perf_counter()
            items = operation()
            times.append((time.perf_counter() - began) * 1000)
        calls = len(made)
    return statistics.median(times), items, calls


def run(tenant_count: int, runs: int, with_before: bool, master_token: str) -> None:
    seed(tenant_count)
    list_page(master_token, {})  # warm-up: imports, clients, the app
    rows = [
        ("first page, default limit (50)", lambda: first_page(master_token, None)),
        ("first page, limit=200", lambda: first_page(master_token, 200)),
        ("all pages, limit=50", lambda: all_pages(master_token, 50)),
        ("all pages, limit=200", lambda: all_pages(master_token, 200)),
    ]
    print(f"GET /tenants with {tenant_count} tenants, median of {runs} runs")
    print(f"{'':34} {'ms':>9} {'tenants':>8} {'DynamoDB calls':>15}")
    for label, operation in rows:
        median, items, calls = measure(operation, runs)
        print(f"{label:34} {median:9.1f} {items:8d} {calls:15d}")
    if with_before:
        median, items, calls = measure(before, 1)
        print(f"{'before: Scan + 2 COUNTs per tenant':34} {median:9.1f} {items:8d} {calls:15d}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.tenants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tenants", type=int, default=2000, help="tenant records (2000)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (5)")
    parser.add_argument("--no-before", action="store_true", help="skip the old read pattern")
    args = parser.parse_args(argv)

    stack = LocalStack(prefix=PREFIX)
    os.environ.update(stack.environment())  # before any gateway module is imported
    from local_stack import moto_fixes

    moto_fixes.apply()  # as the local stack does
    server, endpoint = start_moto(stack.moto_port)
    try:
        create_resources(endpoint, local_resources(load_template()), PREFIX)
        run(args.tenants, args.runs, not args.no_before, stack.master_token)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
