"""What one send, one received message and one webhook delivery cost in AWS requests, measured.

Used by ``bench/cost.py``. In one process: moto with the template's tables and queues, a real
``SessionHost`` on the simulated network with one connected device, the real Lambda handlers
of the messages and webhook delivery functions, and a loopback receiver. Every botocore call
is recorded with what DynamoDB would bill for it (request units from the item sizes), and
attributed to who made it: the session host's threads (by name) are the host, every other
thread plays the Lambda functions (and the SQS event source mapping, whose receives and
deletes are billed to the account too). The host's periodic work (lease renewals, takeover
passes, polls) is kept out of the windows by a long lease TTL; ``bench/cost.py`` prices it
from the code's intervals.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench._cost_bill import Bill, Recorder
from bench._route_calls import answered
from bench._stack import moto_stack


class Receiver:
    """A loopback webhook receiver that counts the bytes it was sent."""

    def __init__(self) -> None:
        self.bodies = 0
        self.bytes = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with receiver.lock:
                    receiver.bodies += 1
                    receiver.bytes += len(body) + sum(len(k) + len(v) + 4 for k, v in self.headers.items())
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 1024  # a batch's deliveries connect at once

        self.server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"


def wait(condition: Any, timeout: float = 30.0, what: str = "a condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.02)


def lambda_event(name: str, body: dict[str, Any], **values: str) -> dict[str, Any]:
    from local_stack.sample_events import load_event

    event = load_event(name, body, **values)
    event["requestContext"]["requestId"] = uuid.uuid4().hex[:16]
    event["headers"]["idempotency-key"] = str(uuid.uuid4())
    return event


@dataclass
class Measured:
    """Per send, per received message and per delivered event, as measured."""

    send_lambda: Bill
    send_host: Bill
    send_ms: float  # the messages function's handler, median, without pacing
    events_per_send: float
    inbound_host: Bill
    events_per_inbound: float
    delivery_lambda: Bill  # per event, the event source mapping's receives and deletes included
    delivery_ms_per_event: float
    webhook_bytes_per_event: float


def measure(sends: int, inbound: int, batch_size: int) -> Measured:
    """Drive ``sends`` sends and ``inbound`` received messages, then deliver every event."""
    import tempfile

    with (
        moto_stack("benchcost") as (stack, _),
        tempfile.TemporaryDirectory() as data_dir,
        Recorder().installed() as recorder,
    ):
        return _scenario(stack.master_token, data_dir, recorder, sends, inbound, batch_size)


def _scenario(
    master_token: str, data_dir: str, recorder: Recorder, sends: int, inbound: int, batch_size: int
) -> Measured:
    import statistics

    from devices_api.handler import handler as devices_handler
    from gateway.bus import contracts, get_bus
    from gateway.bus.queues import sqs_client
    from gateway.config import get_settings
    from gateway.models import DeviceModel
    from gateway.observability import logger
    from local_stack.delivery_worker import LambdaContext, lambda_record
    from messages_api.handler import handler as messages_handler
    from platform_api.handler import handler as platform_handler
    from session_host.config import HostSettings
    from session_host.host import SessionHost
    from session_host.host_thread import HostThread
    from session_host.network.simulated import SimulatedNetwork, SimulatedPort
    from webhook_delivery.handler import handler as delivery_handler
    from webhooks_api.handler import handler as webhooks_handler

    logger.setLevel("WARNING")
    context = LambdaContext()
    name = f"cost-{uuid.uuid4().hex[:8]}"
    registered = answered(
        platform_handler(
            lambda_event(
                "register",
                {"tenant_name": name, "email": f"a@{name}.example.com", "password": "secret123"},
                master_token=master_token,
            ),
            context,
        ),
        201,
    )
    token, tenant_id = registered["token"], registered["tenant"]["id"]
    device = answered(
        devices_handler(lambda_event("devices-create", {"name": "cost"}, user_token=token), context), 201
    )["device"]
    device_id = device["id"]
    receiver = Receiver()
    answered(
        webhooks_handler(
            lambda_event(
                "webhook-configure",
                {
                    "webhook_url": receiver.url,
                    "secret": "s3cret-for-the-bench",
                    "enabled_events": ["message", "device.connected"],
                },
                user_token=token,
                device_id=device_id,
            ),
            context,
        ),
        201,
    )

    network = SimulatedNetwork()
    # A long lease keeps renewals and takeover passes out of the windows (priced apart).
    host_settings = HostSettings(data_dir=data_dir, lease_ttl_seconds=3600)
    host = HostThread(SessionHost(port=SimulatedPort(network), settings=host_settings)).start()
    sqs, events_queue = sqs_client(), get_settings().events_queue_url
    try:
        bus = get_bus()
        bus.request(
            contracts.CONNECT, tenant_id=tenant_id, device_id=device_id, host_queue_url=host.host.queue_url
        )
        wait(lambda: DeviceModel.get(tenant_id, device_id).status == "pairing", what="a QR")
        network.scan(device_id, "15550009000")
        wait(lambda: DeviceModel.get(tenant_id, device_id).status == "connected", what="connected")
        network.create_account("15550009001")
        _drain(sqs, events_queue)

        def queued() -> int:
            attributes = sqs.get_queue_attributes(
                QueueUrl=events_queue, AttributeNames=["ApproximateNumberOfMessages"]
            )["Attributes"]
            return int(attributes["ApproximateNumberOfMessages"])

        # Sends: POST /send/text through the messages function, with an Idempotency-Key.
        body = {"number": "15550009001", "text": "Your order shipped", "disablePresence": True}
        durations: list[float] = []
        with recorder.window() as send_bills:
            for _ in range(sends):
                event = lambda_event("send-text", body, user_token=token, device_id=device_id)
                with recorder.lambda_calls():
                    started = time.perf_counter()
                    answered(messages_handler(event, context), 200)
                    durations.append((time.perf_counter() - started) * 1000)
            # the mark and message.sent follow each answer; the contact's receipts come after
            wait(lambda: queued() >= sends, what="message.sent of every send")
            time.sleep(0.5)  # a margin for late receipts: the count below is what arrived
        events_after_sends = queued()

        with recorder.window() as inbound_bills:
            jid = DeviceModel.get(tenant_id, device_id).messaging_jid
            for _ in range(inbound):
                network.send_from_account("15550009001", jid, "Where is my order?")
            wait(lambda: queued() >= events_after_sends + inbound, what="message.received of every message")
            time.sleep(0.5)
        events = queued()

        bytes_before = receiver.bytes
        with recorder.window() as delivery_bills:
            delivered, handler_ms = 0, 0.0
            while delivered < events:
                with recorder.lambda_calls():
                    messages = _receive(sqs, events_queue, batch_size)
                    if not messages:
                        continue
                    arn = f"arn:aws:sqs:us-east-1:123456789012:{events_queue.rsplit('/', 1)[-1]}"
                    records = [lambda_record(message, arn, "us-east-1") for message in messages]
                    started = time.perf_counter()
                    answer = delivery_handler({"Records": records}, LambdaContext())
                    handler_ms += (time.perf_counter() - started) * 1000
                    failed = {item["itemIdentifier"] for item in answer.get("batchItemFailures", [])}
                    done = [m for m in messages if m["MessageId"] not in failed]
                    for chunk in range(0, len(done), 10):
                        sqs.delete_message_batch(
                            QueueUrl=events_queue,
                            Entries=[
                                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                                for i, m in enumerate(done[chunk : chunk + 10])
                            ],
                        )
                    delivered += len(done)
    finally:
        host.stop()
    return Measured(
        send_lambda=send_bills["lambda"].per(sends),
        send_host=send_bills["host"].per(sends),
        send_ms=statistics.median(durations),
        events_per_send=events_after_sends / sends,
        inbound_host=inbound_bills["host"].per(inbound),
        events_per_inbound=(events - events_after_sends) / inbound,
        delivery_lambda=delivery_bills["lambda"].per(events),
        delivery_ms_per_event=handler_ms / events,
        webhook_bytes_per_event=(receiver.bytes - bytes_before) / events,
    )


def _receive(sqs: Any, queue_url: str, batch_size: int) -> list[dict[str, Any]]:
    """Up to ``batch_size`` messages, in receives of up to 10, as the event source mapping polls."""
    messages: list[dict[str, Any]] = []
    while len(messages) < batch_size:
        got = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=min(10, batch_size - len(messages)),
            WaitTimeSeconds=0,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        if not got:
            break
        messages += got
    return messages


def _drain(sqs: Any, queue_url: str) -> None:
    """Delete what the pairing published (connected, QR ...): not part of any measured window."""
    while got := sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", []):
        sqs.delete_message_batch(
            QueueUrl=queue_url,
            Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)],
        )
