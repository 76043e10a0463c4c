"""Received media on a session host: moto S3, SQS and DynamoDB, the simulated network. The
bytes land in the media bucket under the device, the published event names them and is small."""

from __future__ import annotations

import hashlib
import uuid
from unittest import mock

from botocore.exceptions import ClientError
from host_harness import Harness

from gateway.config import get_settings
from gateway.media import store
from gateway.retries import SESSION_RECORD_WRITE
from local_stack.stack import LocalStack
from session_host.network.media_types import MediaKind, OutgoingMedia
from session_host.received_media import upload

CONTACT = "15550003333"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64

_STORE_ATTEMPTS = SESSION_RECORD_WRITE.attempts


def send_image(harness: Harness, jid: str) -> str:
    harness.network.create_account(CONTACT)
    image = OutgoingMedia(MediaKind.IMAGE, PNG, "image/png", caption="a receipt")
    return harness.network.send_from_account(CONTACT, jid, None, media=image)


def test_a_received_image_is_stored_under_the_device_and_the_event_names_it(harness: Harness) -> None:
    # Given a connected device on a host
    harness.hosts.start()
    device = harness.new_device()
    jid = harness.pair(device)

    # When a contact sends it an image
    send_image(harness, jid)

    # Then message.received names the stored media, and carries no bytes
    item = harness.events.wait_for(device.device_id, "message.received")
    media = item["envelope"]["data"]["media"]
    assert (media["size"], media["error"]) == (len(PNG), None)
    assert media["sha256"] == hashlib.sha256(PNG).hexdigest()
    media_id = media["media_path"].removeprefix("/media/")
    assert store.device_of(media_id) == device.device_id
    assert len(str(item["envelope"])) < len(PNG)
    # And the bucket holds the same bytes under the tenant's device
    assert store.get(device.tenant_id, device.device_id, media_id) == PNG


def test_when_s3_keeps_failing_the_message_is_still_published(harness: Harness) -> None:
    # Given a connected device on a host whose S3 puts all fail
    failure = ClientError({"Error": {"Code": "InternalError", "Message": "down"}}, "PutObject")
    harness.hosts.start()
    device = harness.new_device()
    jid = harness.pair(device)

    with mock.patch("session_host.received_media.upload", side_effect=failure) as put:
        # When a contact sends it an image
        message_id = send_image(harness, jid)

        # Then the message is reported anyway, with media_path null, after a few attempts
        item = harness.events.wait_for(device.device_id, "message.received")
    assert item["envelope"]["data"]["message_id"] == message_id
    assert item["envelope"]["data"]["media"]["media_path"] is None
    assert item["envelope"]["data"]["media"]["error"] == "store_failed"
    assert put.call_count == _STORE_ATTEMPTS


def test_large_received_media_go_up_in_parts_with_their_type_and_name(stack: LocalStack) -> None:
    # Given received bytes above the managed transfer's multipart threshold (8 MB)
    tenant_id, device_id = f"tenant-{uuid.uuid4().hex[:12]}", f"device-{uuid.uuid4().hex[:12]}"
    data = bytes(range(256)) * (9 * 1024 * 4)  # 9 MB

    # When the host stores them
    stored = upload(tenant_id, device_id, data, "application/pdf", "report é.pdf")

    # Then S3 holds them as a multipart object, with their type, digest and file name
    head = store.s3_client().head_object(Bucket=get_settings().media_bucket, Key=stored.key)
    assert head["ETag"].strip('"').endswith("-2")  # two 8 MB parts at most: a multipart upload
    assert (head["ContentType"], head["ContentLength"]) == ("application/pdf", len(data))
    assert head["Metadata"] == {"sha256": hashlib.sha256(data).hexdigest(), "filename": "report%20%C3%A9.pdf"}
    assert store.get(tenant_id, device_id, stored.media_id) == data
