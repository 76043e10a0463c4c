"""The devices, webhooks, messages and webhook delivery functions, driven with the sample events
of ``events/`` through their real Lambda entry points, against the local stack (moto).

The API Gateway samples are invoked as in ``test_lambda_handlers.py`` (each sample itself is
checked in ``test_lambda_sample_events.py``). The SQS sample ``webhook-delivery-sqs.json`` goes
to the delivery function's handler, with a receiver on loopback standing in for the user's
webhook URL.
POST /messages/read needs the device's session: a stand-in session host answers the command
on the bus, as a real host that runs the device would.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import pytest
from lambda_invoke import DELIVERY_SAMPLE, RegisteredTenant, invoke, register_tenant
from loopback_receiver import loopback_receiver

from gateway.bus import Command, CommandName, DeviceSnapshot, queues
from gateway.bus.messages import WIRE_VERSION, read_command
from gateway.models import DeviceModel
from gateway.webhooks.catalog import SUBSCRIBABLE
from gateway.webhooks.signing import body_signature
from local_stack.delivery_worker import LambdaContext
from local_stack.sample_events import EVENTS_DIR, load_event
from local_stack.stack import LocalStack
from webhook_delivery.handler import handler as delivery_handler

JID = "15551234567@s.whatsapp.net"

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish:UserWarning")


@dataclass
class User:
    id: str
    token: str


def sample_body(name: str) -> dict[str, Any]:
    """The JSON body a sample event carries, as shipped."""
    return json.loads(json.loads((EVENTS_DIR / f"{name}.json").read_text())["body"])


def new_device(token: str, name: str | None = None) -> dict[str, Any]:
    """A device made with devices-create.json (its sample name unless ``name`` is given)."""
    body = None if name is None else {"name": name}
    response = invoke("devices-create", load_event("devices-create", body=body, user_token=token))
    assert response.status == 201, response.body
    return response.body["device"]


def deliver(tenant_id: str, device_id: str) -> dict[str, Any]:
    """Invoke the delivery function with the SQS sample for the device; its response.

    On a thread of its own, as the local worker does: outside Lambda the batch processor runs
    its loop with ``asyncio.run``, which leaves the calling thread without an event loop (and
    the Mangum-wrapped handlers called on the main thread need one).
    """
    event = load_event(DELIVERY_SAMPLE, tenant_id=tenant_id, device_id=device_id)
    with ThreadPoolExecutor(1) as invoker:
        return invoker.submit(delivery_handler, event, LambdaContext()).result()


def deliveries(token: str, device_id: str) -> list[dict[str, Any]]:
    response = invoke(
        "webhook-deliveries", load_event("webhook-deliveries", user_token=token, device_id=device_id)
    )
    assert response.status == 200, response.body
    return response.body["deliveries"]


@contextmanager
def host_running(
    device: dict[str, Any], result: dict[str, Any] | None = None
) -> Iterator[list[Command[Any]]]:
    """A stand-in session host running ``device``, connected: its queue on the record, every
    command answered with success (``result``, the JSON of the command's result: empty by
    default). Yields the commands it received."""
    queue = queues.create_dynamic_queue(queues.HOST_QUEUE, uuid.uuid4().hex[:16])
    connected = {"status": "connected", "is_connected": True, "is_logged_in": True, "messaging_jid": JID}
    record = DeviceModel.get(device["tenant_id"], device["id"], consistent_read=True)
    record.update(
        actions=[getattr(DeviceModel, key).set(value) for key, value in connected.items()]
        + [DeviceModel.host_queue_url.set(queue)]
    )
    received: list[Command[Any]] = []
    stopped = threading.Event()

    def serve() -> None:
        sqs = queues.sqs_client()
        while not stopped.is_set():
            for message in sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=1).get("Messages", []):
                sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])
                command = read_command(message["Body"])
                received.append(command)
                reply = {
                    "v": WIRE_VERSION,
                    "command_id": command.id,
                    "ok": True,
                    "result": result or {},
                    "device": asdict(DeviceSnapshot("connected", True, True, JID)),
                }
                sqs.send_message(QueueUrl=command.reply_to, MessageBody=json.dumps(reply))

    thread = threading.Thread(target=serve, name="stand-in-host", daemon=True)
    thread.start()
    try:
        yield received
    finally:
        stopped.set()
        thread.join(timeout=5)
        queues.delete_queue(queue)


@pytest.fixture(scope="module")
def tenant(stack: LocalStack) -> RegisteredTenant:
    return register_tenant(stack.master_token)


@pytest.fixture(scope="module")
def owner(tenant: RegisteredTenant) -> User:
    """A plain user of the tenant, created by its admin: sees only the devices it owns."""
    body = {"email": f"owner-{uuid.uuid4().hex[:8]}@{tenant.name}.example.com", "password": "secret123"}
    event = load_event("users-create", body={**body, "role": "user"}, user_token=tenant.admin_token)
    response = invoke("users-create", event)
    assert response.status == 201, response.body
    return User(response.body["user"]["id"], response.body["user"]["token"])


# --- devices function ------------------------------------------------------------------------


def test_devices_create_sample_creates_a_device_of_the_caller(tenant: RegisteredTenant, owner: User) -> None:
    # Given devices-create.json as shipped, with the owner's token
    event = load_event("devices-create", user_token=owner.token)

    # When the devices function handles it
    response = invoke("devices-create", event)

    # Then a device of the owner's tenant is created with the sample's name, not connected yet
    assert response.status == 201, response.body
    device = response.body["device"]
    assert response.body["success"] is True
    assert str(uuid.UUID(device["id"])) == device["id"]
    assert device["name"] == sample_body("devices-create")["name"]
    assert (device["tenant_id"], device["owner_user_id"]) == (tenant.id, owner.id)
    assert device["status"] == "not_ready"
    assert (device["is_connected"], device["is_logged_in"], device["messaging_jid"]) == (False, False, None)
    assert "host_queue_url" not in device
    assert "wants_connection" not in device


def test_devices_list_shows_a_user_its_own_devices_and_the_admin_all(
    tenant: RegisteredTenant, owner: User
) -> None:
    # Given a device of the owner and one of the admin
    mine = new_device(owner.token)
    admins = new_device(tenant.admin_token, "Admin tablet")

    # When each invokes devices-list.json
    as_owner = invoke("devices-list", load_event("devices-list", user_token=owner.token))
    as_admin = invoke("devices-list", load_event("devices-list", user_token=tenant.admin_token))

    # Then the owner sees its own device only, and the admin both
    assert as_owner.status == 200, as_owner.body
    assert as_admin.status == 200, as_admin.body
    owner_ids = {device["id"] for device in as_owner.body["devices"]}
    admin_ids = {device["id"] for device in as_admin.body["devices"]}
    assert mine["id"] in owner_ids
    assert admins["id"] not in owner_ids
    assert {mine["id"], admins["id"]} <= admin_ids
    assert mine in as_owner.body["devices"]


def test_device_get_answers_the_device(owner: User) -> None:
    # Given a device of the owner
    device = new_device(owner.token)

    # When device-get.json asks for it
    response = invoke("device-get", load_event("device-get", user_token=owner.token, device_id=device["id"]))

    # Then the device comes back as it was created
    assert response.status == 200, response.body
    assert response.body == {"success": True, "device": device}


def test_device_get_is_404_for_callers_who_cannot_see_the_device(
    stack: LocalStack, tenant: RegisteredTenant, owner: User
) -> None:
    # Given the admin's device, the owner (a plain user of the same tenant) and another tenant
    device = new_device(tenant.admin_token, "Admin phone")
    other = register_tenant(stack.master_token)

    # When they, and the owner with the placeholder left in, invoke device-get.json
    not_owned = invoke("device-get", load_event("device-get", user_token=owner.token, device_id=device["id"]))
    other_tenant = invoke(
        "device-get", load_event("device-get", user_token=other.admin_token, device_id=device["id"])
    )
    placeholder = invoke("device-get", load_event("device-get", user_token=owner.token))

    # Then the device does not exist for any of them
    for response in (not_owned, other_tenant, placeholder):
        assert response.status == 404
        assert response.body["error_code"] == "DEVICE_NOT_FOUND"


# --- webhooks function -----------------------------------------------------------------------


def test_webhook_configure_sample_creates_then_updates_the_configuration(owner: User) -> None:
    # Given a device of the owner and webhook-configure.json for it
    device = new_device(owner.token)
    event = load_event("webhook-configure", user_token=owner.token, device_id=device["id"])
    sample = sample_body("webhook-configure")

    # When it is invoked twice
    created = invoke("webhook-configure", event)
    updated = invoke("webhook-configure", event)

    # Then the first creates the configuration (201) and the second updates it (200)
    assert created.status == 201, created.body
    assert created.body["message"] == "Webhook configured"
    webhook = created.body["webhook"]
    assert webhook["webhook_url"] == sample["webhook_url"]
    assert sorted(webhook["enabled_events"]) == sorted(sample["enabled_events"])
    assert (webhook["enabled"], webhook["retry_attempts"], webhook["timeout"]) == (True, 3, 10)
    assert webhook["has_secret"] is True
    assert "secret" not in webhook
    assert updated.status == 200, updated.body
    assert updated.body["message"] == "Webhook updated"
    assert updated.body["webhook"]["id"] == webhook["id"]


def test_webhook_events_lists_every_subscribable_event(owner: User) -> None:
    # Given webhook-events.json with the owner's token
    event = load_event("webhook-events", user_token=owner.token)

    # When it is invoked
    response = invoke("webhook-events", event)

    # Then the catalog and its aliases come back, including every event the samples use
    assert response.status == 200, response.body
    assert response.body == {"success": True, "events": list(SUBSCRIBABLE)}
    assert set(sample_body("webhook-configure")["enabled_events"]) <= set(response.body["events"])


def test_webhook_deliveries_of_a_device_without_deliveries_is_empty(owner: User) -> None:
    # Given a new device of the owner
    device = new_device(owner.token)

    # When webhook-deliveries.json asks for its delivery log
    event = load_event("webhook-deliveries", user_token=owner.token, device_id=device["id"])
    response = invoke("webhook-deliveries", event)

    # Then the log is empty
    assert response.status == 200, response.body
    assert response.body == {"success": True, "deliveries": [], "next": None}


# --- messages function -----------------------------------------------------------------------


def test_messages_read_of_a_device_not_connected_is_503(owner: User) -> None:
    # Given a new device, never connected, and messages-read.json for it
    device = new_device(owner.token)
    event = load_event("messages-read", user_token=owner.token, device_id=device["id"])

    # When it is invoked
    response = invoke("messages-read", event)

    # Then the device is not ready
    assert response.status == 503
    assert response.body["error_code"] == "DEVICE_NOT_READY"


def test_messages_read_sends_the_read_receipts_through_the_devices_session(owner: User) -> None:
    # Given a connected device, run by a session host
    device = new_device(owner.token)
    sample = sample_body("messages-read")
    with host_running(device) as received:
        # When messages-read.json is invoked for it
        event = load_event("messages-read", user_token=owner.token, device_id=device["id"])
        response = invoke("messages-read", event)

    # Then the host was told to mark the messages read, the sender being the chat's person
    assert response.status == 200, response.body
    assert response.body == {"success": True, **sample}
    (command,) = received
    assert (command.name, command.device_id, command.tenant_id) == (
        CommandName.MARK_READ,
        device["id"],
        device["tenant_id"],
    )
    assert command.args.model_dump() == {**sample, "sender_jid": sample["chat_jid"]}


def test_send_text_of_a_device_not_connected_is_503_and_leaves_its_key_free(owner: User) -> None:
    # Given a new device, never connected, and send-text.json (with its Idempotency-Key) for it
    device = new_device(owner.token)
    event = load_event("send-text", user_token=owner.token, device_id=device["id"])

    # When it is invoked twice
    responses = [invoke("send-text", event), invoke("send-text", event)]

    # Then both are refused: a refusal leaves no idempotency record to answer the repeat from
    assert [(r.status, r.body["error_code"]) for r in responses] == [(503, "DEVICE_NOT_READY")] * 2


def test_send_text_is_sent_once_and_a_repeat_gets_the_first_answer(owner: User) -> None:
    # Given a connected device whose host answers that the send went out
    device = new_device(owner.token)
    sample = sample_body("send-text")
    chat = f"{sample['number']}@s.whatsapp.net"
    sent = {"status": "sent", "message_id": "M1", "chat_jid": chat, "network_message_id": "3EB0N1"}
    with host_running(device, sent) as received:
        # When send-text.json is invoked, then again with the same key
        event = load_event("send-text", user_token=owner.token, device_id=device["id"])
        first = invoke("send-text", event)
        repeat = invoke("send-text", event)
        # And with the same key and another text
        event["body"] = json.dumps({**sample, "text": "another"})
        reused = invoke("send-text", event)

    # Then the first is 200 sent for the chat's JID, the repeat the same, and one command went out
    assert first.status == 200, first.body
    assert first.body == {
        "success": True,
        "message_id": first.body["message_id"],
        "status": "sent",
        "chat_jid": chat,
        "network_message_id": "3EB0N1",
    }
    assert (repeat.status, repeat.body) == (200, first.body)
    assert (reused.status, reused.body["error_code"]) == (409, "IDEMPOTENCY_KEY_REUSED")
    (command,) = received
    assert (command.name, command.device_id) == (CommandName.SEND_TEXT, device["id"])
    assert command.args.send is not None
    assert command.args.send.text == sample["text"]
    assert command.args.send_key == command.args.send.send_key


# --- webhook delivery function ---------------------------------------------------------------


def test_delivery_sample_for_a_device_without_configuration_is_acknowledged(owner: User) -> None:
    # Given a device with no webhook configuration
    device = new_device(owner.token)

    # When the delivery function gets the SQS sample for it
    response = deliver(device["tenant_id"], device["id"])

    # Then the record is acknowledged (nothing to retry) and nothing is logged
    assert response == {"batchItemFailures": []}
    assert deliveries(owner.token, device["id"]) == []


def test_delivery_sample_is_delivered_to_the_configured_receiver(owner: User) -> None:
    # Given a device whose webhook (configured with webhook-configure.json) points at a receiver
    device = new_device(owner.token)
    envelope = json.loads(
        json.loads((EVENTS_DIR / f"{DELIVERY_SAMPLE}.json").read_text())["Records"][0]["body"]
    )
    with loopback_receiver() as (port, receiver):
        url = f"http://127.0.0.1:{port}/hook"
        body = {**sample_body("webhook-configure"), "webhook_url": url}
        configure = load_event("webhook-configure", body=body, user_token=owner.token, device_id=device["id"])
        assert invoke("webhook-configure", configure).status == 201

        # When the delivery function gets the SQS sample for it
        response = deliver(device["tenant_id"], device["id"])

        # Then the record is acknowledged, and the receiver got the sample's envelope, signed
        assert response == {"batchItemFailures": []}
        (request,) = receiver.of("/hook")
    delivered = json.loads(request.body)
    assert delivered["id"] == envelope["id"]
    assert (delivered["event"], delivered["device_id"]) == ("message.received", device["id"])
    assert delivered["data"] == envelope["data"]
    assert request.headers["x-webhook-id"] == envelope["id"]
    assert request.headers["x-webhook-event"] == "message.received"
    assert request.headers["x-webhook-signature-256"] == body_signature(body["secret"], request.body)
    # And webhook-deliveries.json shows the attempt
    (attempt,) = deliveries(owner.token, device["id"])
    assert (attempt["id"], attempt["event"], attempt["attempt"]) == (envelope["id"], "message.received", 1)
    assert (attempt["status"], attempt["status_code"], attempt["webhook_url"]) == ("delivered", 200, url)
