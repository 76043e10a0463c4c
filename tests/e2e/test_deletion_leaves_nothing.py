"""Deletion that deletes, over HTTP on the local stack: after DELETE /global/tenants/{id} (or
DELETE /devices/{id}) no table and no bucket of the stack holds anything of that tenant (or
device). The tables and buckets are listed from the stack itself, not from a hand list, so a
new one cannot be forgotten; before the deletion the same probe finds the data in every
place it is kept, so the probe is known to see it."""

from __future__ import annotations

import base64
import io
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from device_flows import simulator
from group_flows import Phone, connected_device, contact
from PIL import Image

from gateway import aws
from gateway.config import get_settings
from local_stack.stack import LocalStack
from local_stack.template import load_template, local_resources

pytestmark = pytest.mark.e2e

BUCKET = "bucket:"
"""How :func:`leftovers` names a bucket (a table goes by its name)."""


LARGE_TEXT = "\U0001f600" * 30_000  # 360 KB as queued JSON: the envelope waits in the bucket


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 24), (200, 40, 90)).save(out, format="PNG")
    return out.getvalue()


@dataclass
class Footprint:
    """What identifies a tenant's (or a device's) data: ids, names and the texts it sent."""

    needles: set[str] = field(default_factory=set)

    def add(self, *values: str | None) -> None:
        self.needles.update(value.casefold() for value in values if value)

    def found_in(self, text: str) -> bool:
        folded = text.casefold()
        return any(needle in folded for needle in self.needles)


def places(stack: LocalStack) -> tuple[list[str], list[str]]:
    """Every table and bucket of the stack, as its AWS endpoint lists them."""
    tables = [
        name
        for page in aws.client("dynamodb").get_paginator("list_tables").paginate()
        for name in page["TableNames"]
    ]
    buckets = [bucket["Name"] for bucket in aws.client("s3").list_buckets()["Buckets"]]
    # The listing is the stack's own: every table and bucket it made from the template is in it
    declared = local_resources(load_template())
    assert {stack.names[table] for table in declared.tables} <= set(tables)
    assert {stack.names[bucket] for bucket in declared.buckets} <= set(buckets)
    return tables, buckets


def leftovers(stack: LocalStack, footprint: Footprint) -> dict[str, list[str]]:
    """Per table (or ``bucket:<name>``), the items or objects that carry the footprint."""
    tables, buckets = places(stack)
    dynamodb, s3 = aws.client("dynamodb"), aws.client("s3")
    found: dict[str, list[str]] = {}
    for table in tables:
        for page in dynamodb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
            for item in page["Items"]:
                text = json.dumps(item, default=str, ensure_ascii=False)
                if footprint.found_in(text):
                    found.setdefault(table, []).append(text[:300])
    for bucket in buckets:
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            for item in page.get("Contents", []):
                if footprint.found_in(item["Key"]):
                    found.setdefault(BUCKET + bucket, []).append(item["Key"])
    return found


@dataclass
class Busy:
    """A tenant that used everything the gateway stores: two users, a device each, a webhook
    with its delivery log, sends of every fate (sent, scheduled, unclear), sent and received
    media, an event stored whole in the bucket, and Idempotency-Key records."""

    tenant: Any
    user_id: str
    devices: list[Phone]
    texts: list[str]


def busy_tenant(api: Any, events: Any, settings_override: Callable[..., None]) -> Busy:
    tenant = api.register()
    user_id, user_token = api.create_user(tenant, "user")
    mine, theirs = connected_device(api, tenant.admin_token), connected_device(api, user_token)
    ana = contact(api)
    texts = [f"probe {uuid.uuid4().hex}" for _ in range(4)]
    for device in (mine, theirs):
        assert device.device_id is not None
        events.subscribe(api, device.token, device.device_id)

    def send(device: Phone, path: str, body: dict[str, Any], status: int) -> None:
        key = {"Idempotency-Key": str(uuid.uuid4())}
        response = device.call(api, "POST", path, body, headers=key)
        assert response.status_code == status, response.text

    sent = {"number": ana.phone, "typingDuration": 0}
    send(mine, "/send/text", {**sent, "text": texts[0]}, 200)
    send(
        theirs,
        "/send/image",
        {**sent, "data_base64": base64.b64encode(png()).decode(), "caption": texts[1]},
        200,
    )
    simulator(api, "POST", "/faults", device_id=theirs.device_id, operation="send_text", error="ack_lost")
    send(theirs, "/send/text", {**sent, "text": texts[2]}, 503)
    settings_override(SEND_HOLD_SECONDS="1")
    send(mine, "/send/text", {**sent, "text": texts[3], "delay": 3600}, 202)
    image = {"kind": "image", "data_base64": base64.b64encode(png()).decode(), "mimetype": "image/png"}
    simulator(api, "POST", f"/accounts/{ana.phone}/messages", to=mine.jid, media=image)
    # and an event too large for a queue message, whose envelope waits in the bucket
    simulator(api, "POST", f"/accounts/{ana.phone}/messages", to=mine.jid, text=LARGE_TEXT)
    events.wait_for(mine.device_id, "message.received", count=2)
    events.wait_for(mine.device_id, "message.sent")
    events.wait_for(theirs.device_id, "message.sent")
    return Busy(tenant, user_id, [mine, theirs], texts)


def tenant_footprint(busy: Busy) -> Footprint:
    footprint = Footprint()
    tenant = busy.tenant
    footprint.add(tenant.id, tenant.name, f"admin@{tenant.name}.example.com", tenant.admin_id, busy.user_id)
    footprint.add(*(device.device_id for device in busy.devices), *busy.texts)
    return footprint


def test_a_deleted_tenant_leaves_nothing_in_any_table_or_bucket(
    api: Any, stack: LocalStack, events: Any, settings_override: Callable[..., None]
) -> None:
    # Given a tenant that used everything the gateway stores
    busy = busy_tenant(api, events, settings_override)
    footprint = tenant_footprint(busy)
    settings = get_settings()
    before = leftovers(stack, footprint)
    expected = {
        settings.tenants_table,
        settings.users_table,
        settings.tokens_table,
        settings.unique_keys_table,
        settings.devices_table,
        settings.webhooks_table,
        settings.deliveries_table,
        settings.leases_table,
        settings.sends_table,
        settings.idempotency_table,
        BUCKET + settings.media_bucket,
    }
    assert expected <= before.keys(), f"the probe does not see the tenant in {expected - before.keys()}"
    assert any(key.startswith("events/") for key in before[BUCKET + settings.media_bucket])

    # When the platform deletes it
    response = api.request("DELETE", f"/global/tenants/{busy.tenant.id}", api.master_token)

    # Then no item of any table and no object of any bucket is left of it
    assert response.status_code == 200, response.text
    assert leftovers(stack, footprint) == {}


def test_a_deleted_device_leaves_nothing_and_its_sibling_keeps_everything(
    api: Any, stack: LocalStack, events: Any, settings_override: Callable[..., None]
) -> None:
    # Given a tenant whose two devices used everything the gateway stores
    busy = busy_tenant(api, events, settings_override)
    mine, theirs = busy.devices
    assert theirs.device_id is not None
    gone = Footprint()
    gone.add(theirs.device_id, busy.texts[1], busy.texts[2])
    kept = Footprint()
    kept.add(mine.device_id, busy.texts[0])
    settings = get_settings()
    for table in (settings.sends_table, settings.idempotency_table, settings.deliveries_table):
        assert table in leftovers(stack, gone), f"the probe does not see the device in {table}"
    assert BUCKET + settings.media_bucket in leftovers(stack, gone)
    kept_before = leftovers(stack, kept)

    # When its owner deletes one of them
    response = api.request("DELETE", f"/devices/{theirs.device_id}", theirs.token)

    # Then nothing of it is left anywhere, and the other device's data is all still there
    assert response.status_code == 200, response.text
    assert leftovers(stack, gone) == {}
    assert leftovers(stack, kept).keys() >= kept_before.keys()
