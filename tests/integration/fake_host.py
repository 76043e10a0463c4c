"""A session host stand-in for the device command tests (``test_device_commands.py``).

``FakeHost`` plays the session host per the bus contract on the local stack's SQS: it holds
the device's lease, writes the device record as a host does (``host_queue_url``,
``wants_connection``, the session fields) and replies. A test can script any command of a
device to fail with a given kind, or to get no answer at all.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from gateway import leases
from gateway.bus import Command, CommandName, DeviceSnapshot, Reply, queues
from gateway.bus.contracts import Done
from gateway.bus.contracts.sessions import PairCode, QrCode
from gateway.bus.messages import read_command
from gateway.models import DeviceModel

QR_CODE = "2@fakecode,fakekey,fakeidentity,fakeadv"
JID = "15551234567@s.whatsapp.net"
LEASE_SECONDS = 600

Script = Callable[[Command[Any], DeviceModel], Reply[Any] | None]


class FakeHost:
    """A session host stand-in on the local stack's SQS, following the command contract."""

    def __init__(self) -> None:
        self.host_id = uuid.uuid4().hex[:16]
        self.own_queue = queues.create_dynamic_queue(queues.HOST_QUEUE, self.host_id)
        self.received: list[Command] = []
        self.leases: dict[str, leases.Lease] = {}
        tenure = leases.begin(self.host_id, LEASE_SECONDS)
        assert tenure is not None
        self.tenure = tenure
        self.scripts: dict[tuple[str, CommandName], Script] = {}
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="fake-host", daemon=True)
        self._thread.start()

    def runs(self, device: dict[str, Any]) -> None:
        """Take the device as a host that runs its session: lease, and its queue on the record."""
        lease = leases.acquire(device["id"], device["tenant_id"], self.tenure, self.own_queue)
        assert lease is not None
        self.leases[device["id"]] = lease
        _write(record(device["id"], device["tenant_id"]), host_queue_url=self.own_queue)

    def script(self, device_id: str, name: CommandName, behaviour: Script) -> None:
        self.scripts[(device_id, name)] = behaviour

    def fail(
        self, device_id: str, name: CommandName, kind: str, message: str = "", status: str | None = None
    ) -> None:
        """Make ``name`` fail with ``kind``; the reply's snapshot says ``status`` when given."""

        def failure(command: Command[Any], device: DeviceModel) -> Reply[Any]:
            snapshot = _snapshot(device, status=status) if status else None
            return Reply.failure(command, kind, message, snapshot)

        self.script(device_id, name, failure)

    def silence(self, device_id: str, name: CommandName) -> None:
        """Take ``name`` and never answer, as a host that hangs or died mid-way."""
        self.script(device_id, name, lambda _command, _device: None)

    def commands_for(self, device_id: str) -> list[CommandName]:
        return [command.name for command in self.received if command.device_id == device_id]

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)
        queues.delete_queue(self.own_queue)
        leases.end(self.tenure)

    def _serve(self) -> None:
        sqs = queues.sqs_client()
        while not self._stopped.is_set():
            response = sqs.receive_message(QueueUrl=self.own_queue, MaxNumberOfMessages=10, WaitTimeSeconds=1)
            for message in response.get("Messages", []):
                sqs.delete_message(QueueUrl=self.own_queue, ReceiptHandle=message["ReceiptHandle"])
                command = read_command(message["Body"])
                if command.expired():  # the sender stopped waiting: never executed
                    continue
                self.received.append(command)
                try:
                    answer = self._answer(command)
                except Exception as error:  # a bug in the stand-in: answer as a failing host would
                    answer = Reply.failure(command, "host_error", repr(error), None)
                if answer is not None and command.reply_to:
                    sqs.send_message(QueueUrl=command.reply_to, MessageBody=answer.to_json())

    def _answer(self, command: Command[Any]) -> Reply[Any] | None:
        device = record(command.device_id, command.tenant_id)
        scripted = self.scripts.get((command.device_id, command.name))
        if scripted is not None:
            return scripted(command, device)
        return getattr(self, f"_{command.name.value}")(command, device)

    # --- the contract's default behaviour, for a device that pairs by QR code ----------------

    def _connect(self, command: Command[Any], device: DeviceModel) -> Reply[Any]:
        status = "connected" if device.is_logged_in else "pairing"
        _write(device, status=status, is_connected=device.is_logged_in, **self.running)
        return Reply.success(command, Done(), _snapshot(device))

    def _qr(self, command: Command[Any], device: DeviceModel) -> Reply[Any]:
        return Reply.success(command, QrCode(qr_code=QR_CODE, expires_at=time.time() + 20), _snapshot(device))

    def _pair_phone(self, command: Command[Any], device: DeviceModel) -> Reply[Any]:
        code = "ABCD" + command.args.phone[-4:]
        return Reply.success(command, PairCode(pair_code=code), _snapshot(device))

    def _disconnect(self, command: Command[Any], device: DeviceModel) -> Reply[Any]:
        self._let_go(device, status="disconnected" if device.is_logged_in else "not_ready")
        return Reply.success(command, Done(), _snapshot(device))

    def _logout(self, command: Command[Any], device: DeviceModel) -> Reply[Any]:
        if not device.is_logged_in:
            return Reply.failure(command, "not_connected", "the device is not logged in", _snapshot(device))
        self._let_go(device, status="logged_out", is_logged_in=False)
        return Reply.success(command, Done(), _snapshot(device))

    def _delete(self, command: Command[Any], device: DeviceModel) -> Reply[Any]:
        self._let_go(device, is_logged_in=False)
        return Reply.success(command, Done(), _snapshot(device))

    @property
    def running(self) -> dict[str, Any]:
        """The record fields of a device this host runs."""
        return {"host_queue_url": self.own_queue, "wants_connection": True}

    def _let_go(self, device: DeviceModel, **fields: Any) -> None:
        """Stop running the device: record fields, then the lease."""
        _write(device, is_connected=False, host_queue_url=None, wants_connection=False, **fields)
        lease = self.leases.pop(device.device_id, None)
        if lease is not None:
            leases.release(lease)


def record(device_id: str, tenant_id: str) -> DeviceModel:
    """The device's record as a host reads it (strongly consistent)."""
    return DeviceModel.get(tenant_id, device_id, consistent_read=True)


def _write(device: DeviceModel, **fields: Any) -> None:
    """Update the record as a host does: only while it exists, never re-creating it."""
    actions = [getattr(DeviceModel, name).set(value) for name, value in fields.items()]
    device.update(actions=actions, condition=DeviceModel.device_id.exists())


def _snapshot(device: DeviceModel, status: str | None = None) -> DeviceSnapshot:
    fields = (device.is_connected, device.is_logged_in, device.messaging_jid)
    return DeviceSnapshot(status or device.status, *fields)


def paired(host: FakeHost, device_id: str) -> None:
    """Script a phone scanning the QR code: the device's next connect finds it logged in."""

    def pair_on_connect(command: Command[Any], device: DeviceModel) -> Reply[Any]:
        fields = {"status": "connected", "is_connected": True, "is_logged_in": True, "messaging_jid": JID}
        _write(device, **fields, **host.running)
        return Reply.success(command, Done(), _snapshot(device))

    host.script(device_id, CommandName.CONNECT, pair_on_connect)
