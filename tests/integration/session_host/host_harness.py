"""Helpers of the session host tests: hosts on threads, commands as the API sends them,
and the envelopes on the test's events queue."""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import bus_wire
from waiting import wait_until

from gateway.bus import CommandBus, CommandName, Reply, queues
from gateway.bus.contracts import CONTRACTS
from gateway.models import DeviceModel
from session_host.config import HostSettings
from session_host.host import SessionHost
from session_host.host_thread import HostThread
from session_host.network.simulated import SimulatedNetwork, SimulatedPort

__all__ = ["LEASE_TTL", "PHONE", "Events", "Harness", "Hosts", "record", "wait_until"]

LEASE_TTL = 3.0
PHONE = "15550001111"


def record(tenant_id: str, device_id: str) -> DeviceModel:
    return DeviceModel.get(tenant_id, device_id, consistent_read=True)


@dataclass
class Device:
    tenant_id: str
    device_id: str

    def record(self) -> DeviceModel:
        return record(self.tenant_id, self.device_id)


class Events:
    """The envelopes published on the test's events queue, with their message attributes."""

    def __init__(self, queue_url: str) -> None:
        self._sqs = queues.sqs_client()
        self._queue_url = queue_url
        self.seen: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def read(self) -> None:
        """Take what the queue holds now (up to 10 messages) into ``seen``."""
        response = self._sqs.receive_message(
            QueueUrl=self._queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0, MessageAttributeNames=["All"]
        )
        for message in response.get("Messages", []):
            attributes = {
                name: value["StringValue"] for name, value in message.get("MessageAttributes", {}).items()
            }
            with self._lock:
                self.seen.append({"envelope": json.loads(message["Body"]), "attributes": attributes})
            self._sqs.delete_message(QueueUrl=self._queue_url, ReceiptHandle=message["ReceiptHandle"])

    def of(self, device_id: str, name: str | None = None) -> list[dict[str, Any]]:
        self.read()
        with self._lock:
            return [
                item
                for item in self.seen
                if item["envelope"]["device_id"] == device_id
                and (name is None or item["envelope"]["event"] == name)
            ]

    def names(self, device_id: str) -> list[str]:
        return [item["envelope"]["event"] for item in self.of(device_id)]

    def wait_for(self, device_id: str, name: str, count: int = 1, timeout: float = 10.0) -> dict[str, Any]:
        """The ``count``-th envelope called ``name`` of the device (with its attributes)."""
        found = wait_until(
            lambda: (items := self.of(device_id, name)) and len(items) >= count and items,
            timeout,
            what=f"{count} x {name} for {device_id}",
        )
        return found[count - 1]


class Hosts:
    """Starts session hosts on their own threads for one test; stops the live ones after."""

    def __init__(
        self, network: SimulatedNetwork, data_dir: Path, command_queue: str, events_queue: str
    ) -> None:
        self.network = network
        self.data_dir = data_dir
        self.command_queue = command_queue
        self.events_queue = events_queue
        self._running: list[HostThread] = []

    def start(self, port: SimulatedPort | None = None, **settings: Any) -> HostThread:
        host_id = uuid.uuid4().hex[:16]
        values: dict[str, Any] = {
            "host_id": host_id,
            "data_dir": self.data_dir,
            "lease_ttl_seconds": LEASE_TTL,
            "restore_jitter_seconds": 0.05,
            "liveness_file": self.data_dir.parent / f"{host_id}.alive",
        }
        host = SessionHost(
            port=port or SimulatedPort(self.network),
            settings=HostSettings(**(values | settings)),
            command_queue_url=self.command_queue,
            events_queue_url=self.events_queue,
        )
        thread = HostThread(host).start()
        self._running.append(thread)
        return thread

    def stop(self, thread: HostThread) -> None:
        self._running.remove(thread)
        thread.stop()

    def kill(self, thread: HostThread) -> None:
        self._running.remove(thread)
        thread.kill()

    def stop_all(self) -> None:
        for thread in list(self._running):
            self.stop(thread)


@dataclass
class Harness:
    """What a test drives: hosts, the network, commands as the API sends them, events."""

    hosts: Hosts
    network: SimulatedNetwork
    bus: CommandBus
    events: Events
    command_queue: str
    devices: list[Device] = field(default_factory=list)

    def new_device(self) -> Device:
        now = datetime.now(UTC).isoformat()
        device = Device(f"tenant-{uuid.uuid4().hex[:12]}", str(uuid.uuid4()))
        DeviceModel(
            device.tenant_id,
            device.device_id,
            owner_user_id="user-1",
            name="phone",
            created_at=now,
            updated_at=now,
        ).save()
        self.devices.append(device)
        return device

    def forget_devices(self) -> None:
        """Delete the test's device records, so no later host tries to restore them."""
        for device in self.devices:
            DeviceModel(device.tenant_id, device.device_id).delete()

    def send(self, name: CommandName, device: Device, timeout: float = 10.0, **args: Any) -> Reply:
        """A command as the API sends it: to the queue on the device record, else the shared one.
        ``args`` are the contract's fields; the reply's result comes back as its JSON."""
        return self.send_to(device.record().host_queue_url, name, device, timeout=timeout, **args)

    def send_to(
        self,
        queue_url: str | None,
        name: CommandName,
        device: Device,
        timeout: float | None = None,
        **args: Any,
    ) -> Reply:
        contract = CONTRACTS[name]
        reply = self.bus.request(
            contract,
            contract.args.model_validate(args),
            tenant_id=device.tenant_id,
            device_id=device.device_id,
            host_queue_url=queue_url,
            timeout=timeout,
        )
        return bus_wire.on_the_wire(reply)

    def pair(self, device: Device, phone: str = PHONE) -> str:
        """connect → QR → a phone scans it → connected; returns the account JID."""
        assert self.send(CommandName.CONNECT, device).ok
        wait_until(lambda: self.send(CommandName.QR, device).ok, what="a QR code")
        jid = self.network.scan(device.device_id, phone)
        wait_until(lambda: device.record().status == "connected", what="connected record")
        return jid

    def events_read_to_the_end(self) -> bool:
        """Read the events queue; True once nothing is left on it: every envelope sent before
        the call is then in ``events.seen``."""
        self.events.read()
        return self.queue_is_empty(self.hosts.events_queue)

    def queue_is_empty(self, queue_url: str) -> bool:
        attributes = queues.sqs_client().get_queue_attributes(
            QueueUrl=queue_url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return attributes == {
            "ApproximateNumberOfMessages": "0",
            "ApproximateNumberOfMessagesNotVisible": "0",
        }
