"""Received media: stored before the event is published, which then carries ``media_path`` and
never the bytes; when S3 keeps failing the event still goes out, with ``media_path`` null."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, cast

import pytest
from botocore.exceptions import ClientError

from gateway.media.limits import URL_DOCUMENT_MAX_BYTES, URL_MAX_BYTES
from gateway.media.store import StoredMedia
from gateway.retries import SESSION_RECORD_WRITE
from gateway.webhooks.events_queue import EventEnvelope
from session_host.aws_calls import AwsCalls
from session_host.device_tenure import OwnedDevice
from session_host.network import payloads
from session_host.network.media_payloads import media_object
from session_host.network.media_types import MEDIA_RULES, MediaKind, ReceivedMedia
from session_host.network.port import NetworkEvent
from session_host.outbox_names import RecentSends
from session_host.publisher import EventPublisher
from session_host.received_media import ReceivedMediaKeeper
from session_host.sink import Sinks

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
THROTTLED = ClientError({"Error": {"Code": "SlowDown", "Message": "slow down"}}, "PutObject")

_STORE_ATTEMPTS = SESSION_RECORD_WRITE.attempts


class FakeStore:
    """``store.put`` that fails its first ``failures`` calls, then stores in memory."""

    def __init__(self, failures: int = 0, error: Exception = THROTTLED) -> None:
        self.failures = failures
        self.error = error
        self.calls: list[tuple[str, str, bytes, str, str | None]] = []

    def put(
        self, tenant_id: str, device_id: str, data: bytes, mimetype: str, filename: str | None
    ) -> StoredMedia:
        self.calls.append((tenant_id, device_id, data, mimetype, filename))
        if len(self.calls) <= self.failures:
            raise self.error
        media_id = f"{device_id}.{'a' * 32}"
        return StoredMedia(media_id, f"{tenant_id}/{device_id}/{media_id}", len(data), "x", mimetype)


class FakePublisher:
    def __init__(self) -> None:
        self.published: list[tuple[dict[str, Any], str]] = []

    async def publish(self, envelope: EventEnvelope, tenant_id: str) -> None:
        self.published.append((envelope, tenant_id))


def media_event(filename: str | None = "photo.png") -> NetworkEvent:
    attachment = ReceivedMedia.of(MediaKind.IMAGE, "image/png", PNG, caption="look", filename=filename)
    data = {"message_id": "M1", "message_type": "image", "media": media_object(attachment)}
    return NetworkEvent(name="message.received", data=data, attachment=attachment)


def keep(event: NetworkEvent, fake: FakeStore) -> NetworkEvent:
    async def main() -> NetworkEvent:
        aws = AwsCalls(2, "test-media")
        try:
            keeper = ReceivedMediaKeeper(aws, fake.put, retry=SESSION_RECORD_WRITE.without_waits())
            return await keeper.without_bytes(event, "t1", "d1")
        finally:
            aws.shutdown()

    return asyncio.run(main())


def test_the_bytes_are_stored_under_the_device_and_the_event_names_their_path() -> None:
    # Given a received image with its bytes
    fake = FakeStore()

    # When the keeper prepares it for publishing
    event = keep(media_event(), fake)

    # Then the bytes were stored once under the tenant's device, with type and filename
    assert fake.calls == [("t1", "d1", PNG, "image/png", "photo.png")]
    # And the event names where to fetch them, and carries no bytes
    assert event.attachment is None
    assert event.data["media"]["media_path"] == f"/media/d1.{'a' * 32}"
    assert event.data["media"]["error"] is None
    assert event.data["media"]["size"] == len(PNG)
    assert event.data["media"]["caption"] == "look"
    assert event.data["message_id"] == "M1"


def test_a_passing_s3_failure_is_retried() -> None:
    # Given S3 failing once
    fake = FakeStore(failures=1)

    # When the keeper stores the media
    event = keep(media_event(), fake)

    # Then the second attempt stored them
    assert len(fake.calls) == 2
    assert event.data["media"]["media_path"] is not None


def test_when_s3_keeps_failing_the_event_goes_out_with_a_null_media_path() -> None:
    # Given S3 failing on every attempt
    fake = FakeStore(failures=_STORE_ATTEMPTS)

    # When the keeper stores the media
    event = keep(media_event(), fake)

    # Then it gave up after its attempts, and the message is still reported without bytes
    assert len(fake.calls) == _STORE_ATTEMPTS
    assert event.attachment is None
    assert (event.data["media"]["media_path"], event.data["media"]["error"]) == (None, "store_failed")
    assert event.data["media"]["sha256"] == media_event().data["media"]["sha256"]


def test_an_id_s3_cannot_key_is_not_retried() -> None:
    # Given a store refusing the key outright (not an S3 failure)
    fake = FakeStore(failures=_STORE_ATTEMPTS, error=ValueError("not an id"))

    # When the keeper stores the media
    event = keep(media_event(), fake)

    # Then it gave up at once
    assert len(fake.calls) == 1
    assert event.data["media"]["media_path"] is None


def test_events_without_an_attachment_pass_unchanged() -> None:
    # Given a text message
    fake = FakeStore()
    text = NetworkEvent(name="message.received", data={"message_id": "M2", "text": "hi"})

    # When the keeper sees it
    event = keep(text, fake)

    # Then nothing is stored and the event is the same
    assert fake.calls == []
    assert event is text


def test_a_media_message_without_bytes_says_its_media_path_is_null() -> None:
    # Given a media message whose bytes the adapter could not download
    fake = FakeStore()
    event = replace(media_event(), attachment=None)

    # When the keeper sees it
    kept = keep(event, fake)

    # Then nothing is stored, and media_path says there are no bytes to fetch
    assert fake.calls == []
    assert kept.data["media"]["media_path"] is None
    assert kept.data["media"]["sha256"] == event.data["media"]["sha256"]


def test_the_adapters_reason_for_missing_bytes_is_kept() -> None:
    # Given a media message the adapter timed out on (neonize's download deadline)
    fake = FakeStore()
    event = payloads.media_not_kept(media_event(), "timeout")

    # When the keeper sees it
    kept = keep(event, fake)

    # Then nothing is stored and the reason reaches the receiver
    assert fake.calls == []
    assert (kept.data["media"]["media_path"], kept.data["media"]["error"]) == (None, "timeout")


@pytest.mark.parametrize(
    ("kind", "mimetype", "limit"),
    [
        (MediaKind.IMAGE, "image/png", URL_MAX_BYTES),
        (MediaKind.DOCUMENT, "application/pdf", URL_DOCUMENT_MAX_BYTES),
        (MediaKind.STICKER, "image/webp", MEDIA_RULES[MediaKind.STICKER].max_bytes),
    ],
)
def test_bytes_over_the_send_limits_are_not_stored_whatever_the_adapter(
    kind: MediaKind, mimetype: str, limit: int
) -> None:
    # Given received bytes one byte over their kind's send limit, and others exactly at it
    fake = FakeStore()

    def received(size: int) -> NetworkEvent:
        attachment = ReceivedMedia.of(kind, mimetype, b"\0" * size, caption=None, filename=None)
        data = {"message_id": "M3", "message_type": str(kind), "media": media_object(attachment)}
        return NetworkEvent(name="message.received", data=data, attachment=attachment)

    # When the keeper sees them
    over = keep(received(limit + 1), fake)
    at_limit = keep(received(limit), fake)

    # Then the larger is reported as too large without bytes, the other is stored
    assert (over.attachment, over.data["media"]["media_path"], over.data["media"]["error"]) == (
        None,
        None,
        "too_large",
    )
    assert [len(call[2]) for call in fake.calls] == [limit]
    assert at_limit.data["media"]["error"] is None


def test_the_sink_publishes_the_media_path_and_never_the_bytes() -> None:
    # Given a tenure's sink with a fake store and publisher
    fake = FakeStore()
    publisher = FakePublisher()
    supervisor = SimpleNamespace(observe=lambda event: (event, False))  # a session that never fails
    owned = cast(
        OwnedDevice,
        SimpleNamespace(
            tenant_id="t1",
            device_id="d1",
            active=True,
            ending=False,
            supervisor=supervisor,
            recent_sends=RecentSends(),
        ),
    )
    owned.notify = lambda: None  # type: ignore[method-assign]

    async def main() -> None:
        aws = AwsCalls(2, "test-sink")
        try:
            sinks = Sinks(
                aws=aws,
                publisher=cast(EventPublisher, publisher),
                queue_url=lambda: "q",
                on_session_end=lambda _owned: None,
                on_published=lambda _owned, _event: None,
                media=ReceivedMediaKeeper(aws, fake.put, retry=SESSION_RECORD_WRITE.without_waits()),
            )
            # When a received image passes through it
            await sinks.sink_for(owned)(media_event())
        finally:
            aws.shutdown()

    asyncio.run(main())

    # Then one envelope went out for the tenant, with the media path and no bytes
    [(envelope, tenant_id)] = publisher.published
    assert tenant_id == "t1"
    assert envelope.data["media"]["media_path"] == f"/media/d1.{'a' * 32}"
    body = json.dumps(envelope.fields())
    assert "attachment" not in body
    assert len(body) < len(PNG)
