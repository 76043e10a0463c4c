"""Stories over HTTP on the local stack: the privacy setting decides which contacts see a
story (simulated network), an image story arrives with its bytes' sha256, an
Idempotency-Key repeat publishes once, and the privacy errors answer as the decisions say."""

from __future__ import annotations

import base64
import hashlib
import time
import uuid
from typing import Any

import pytest
from device_flows import simulator
from group_flows import Phone, connected_device, contact, lowercase

pytestmark = pytest.mark.e2e

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


def statuses(api: Any, reader: Phone) -> list[dict[str, Any]]:
    return simulator(api, "GET", f"/accounts/{reader.phone}/inbox")["statuses"]


def texts_seen(api: Any, reader: Phone) -> list[str | None]:
    return [story["text"] for story in statuses(api, reader)]


def author_with_two_contacts(api: Any) -> tuple[Phone, Phone, Phone]:
    """A connected device whose account has two contacts, Ana and Ben."""
    tenant = api.register()
    author = connected_device(api, tenant.admin_token)
    ana, ben = contact(api, "Ana"), contact(api, "Ben")
    simulator(api, "POST", f"/accounts/{author.phone}/contacts", phones=[ana.phone, ben.phone])
    return author, ana, ben


def publish_text(api: Any, author: Phone, text: str) -> str:
    body = author.ok(api, "POST", "/status/text", {"text": text})
    assert set(body) == {"success", "message_id"}, body
    return body["message_id"]


def settle() -> None:
    """Stories reach inboxes as the network delivers them: give it a moment before asserting
    that one did *not* arrive."""
    time.sleep(0.5)


def test_whitelist_reaches_only_the_listed_contact(api: Any) -> None:
    # Given an author with two contacts, sharing stories only with Ana
    author, ana, ben = author_with_two_contacts(api)
    body = author.ok(api, "PUT", "/status/privacy", {"type": "whitelist", "list": [ana.phone]})
    assert body == {"success": True, "type": "whitelist", "count": 1, "list": [ana.jid]}
    # And GET answers what was set
    assert author.ok(api, "GET", "/status/privacy") == body

    # When a text story is published
    publish_text(api, author, "only for Ana")

    # Then Ana sees it and Ben does not
    settle()
    assert texts_seen(api, ana) == ["only for Ana"]
    assert texts_seen(api, ben) == []


def test_blacklist_reaches_everyone_but_the_listed_contact(api: Any) -> None:
    author, ana, ben = author_with_two_contacts(api)
    body = author.ok(api, "PUT", "/status/privacy", {"type": "blacklist", "list": [ana.jid]})
    assert (body["type"], body["list"]) == ("blacklist", [ana.jid])

    publish_text(api, author, "not for Ana")

    settle()
    assert texts_seen(api, ana) == []
    assert texts_seen(api, ben) == ["not for Ana"]


def test_privacy_input_errors(api: Any, envelope: Any) -> None:
    tenant = api.register()
    author = connected_device(api, tenant.admin_token)
    # A whitelist naming nobody: the operation's own 400, lowercase
    lowercase(
        author.call(api, "PUT", "/status/privacy", {"type": "whitelist", "list": []}), 400, "invalid_request"
    )
    lowercase(
        author.call(api, "PUT", "/status/privacy", {"type": "contacts", "list": ["15551234567"]}),
        400,
        "invalid_request",
    )
    # A field that fails validation: the standard envelope
    envelope(
        author.call(api, "PUT", "/status/privacy", {"type": "friends", "list": []}), 400, "VALIDATION_ERROR"
    )
    envelope(
        author.call(api, "PUT", "/status/privacy", {"type": "blacklist", "list": ["not-a-person"]}),
        400,
        "VALIDATION_ERROR",
    )
    # And the setting is still the default
    assert author.ok(api, "GET", "/status/privacy") == {
        "success": True,
        "type": "contacts",
        "count": 0,
        "list": [],
    }


def test_an_image_story_from_inline_bytes_arrives_with_its_sha256(api: Any) -> None:
    author, ana, _ben = author_with_two_contacts(api)
    data_base64 = base64.b64encode(PNG).decode()

    body = author.ok(api, "POST", "/status/image", {"data_base64": data_base64, "caption": "a view"})

    settle()
    (story,) = statuses(api, ana)
    assert story["message_id"] == body["message_id"]
    assert (story["type"], story["caption"]) == ("image", "a view")
    assert story["media"]["sha256"] == hashlib.sha256(PNG).hexdigest()
    assert story["media"]["size"] == len(PNG)


def test_an_image_that_is_no_image_is_refused(api: Any, envelope: Any) -> None:
    tenant = api.register()
    author = connected_device(api, tenant.admin_token)
    pdf = base64.b64encode(b"%PDF-1.4 not an image").decode()
    envelope(author.call(api, "POST", "/status/image", {"data_base64": pdf}), 400, "VALIDATION_ERROR")
    envelope(author.call(api, "POST", "/status/video", {}), 400, "VALIDATION_ERROR")


def test_an_idempotency_key_repeat_publishes_once(api: Any, envelope: Any) -> None:
    author, ana, _ben = author_with_two_contacts(api)
    key = {"Idempotency-Key": str(uuid.uuid4())}

    first = author.call(api, "POST", "/status/text", {"text": "once"}, headers=key)
    again = author.call(api, "POST", "/status/text", {"text": "once"}, headers=key)

    assert first.status_code == again.status_code == 200, (first.text, again.text)
    assert first.json() == again.json()
    settle()
    assert texts_seen(api, ana) == ["once"]
    # The same key with another body is refused, and nothing more is published
    other = author.call(api, "POST", "/status/text", {"text": "twice"}, headers=key)
    envelope(other, 409, "IDEMPOTENCY_KEY_REUSED")
    assert texts_seen(api, ana) == ["once"]


def test_a_story_whose_publishing_ended_unclear_is_never_published_twice_with_its_key(
    api: Any, envelope: Any
) -> None:
    # Given an author whose next story the network takes without ever answering
    author, ana, _ben = author_with_two_contacts(api)
    simulator(
        api, "POST", "/faults", device_id=author.device_id, operation="publish_status", error="ack_lost"
    )
    key = {"Idempotency-Key": str(uuid.uuid4())}

    # When it is published with a key, and repeated
    first = author.call(api, "POST", "/status/text", {"text": "unclear"}, headers=key)
    again = author.call(api, "POST", "/status/text", {"text": "unclear"}, headers=key)

    # Then both answer the timeout (the key stays bound), and the story is out once
    error = envelope(first, 503, "SERVICE_UNAVAILABLE")
    assert "stays bound" in error["error"]
    assert envelope(again, 503, "SERVICE_UNAVAILABLE")["error"] == error["error"]
    settle()
    assert texts_seen(api, ana) == ["unclear"]


def test_a_story_the_network_refused_is_published_by_a_retry_with_the_same_key(
    api: Any, envelope: Any
) -> None:
    # Given an author whose next story the network refuses
    author, ana, _ben = author_with_two_contacts(api)
    simulator(api, "POST", "/faults", device_id=author.device_id, operation="publish_status", error="network")
    key = {"Idempotency-Key": str(uuid.uuid4())}

    # When it is published with a key, and retried with the same key
    refused = author.call(api, "POST", "/status/text", {"text": "second try"}, headers=key)
    retried = author.call(api, "POST", "/status/text", {"text": "second try"}, headers=key)

    # Then the refusal left no record: the retry published it, once
    envelope(refused, 502, "NETWORK_ERROR")
    assert retried.status_code == 200, retried.text
    settle()
    assert texts_seen(api, ana) == ["second try"]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/status/privacy", None),
        ("PUT", "/status/privacy", {"type": "blacklist", "list": []}),
        ("POST", "/status/text", {"text": "not mine"}),
        ("POST", "/status/image", {"data_base64": base64.b64encode(PNG).decode()}),
    ],
)
def test_another_tenant_cannot_use_the_device(
    api: Any, envelope: Any, method: str, path: str, body: Any
) -> None:
    # Given A's connected device with a contact, and B's own device
    author, ana, _ben = author_with_two_contacts(api)
    intruder = api.register()
    connected_device(api, intruder.admin_token)

    # When B names A's device
    headers = {"X-Device-Id": author.device_id}
    response = api.request(method, path, intruder.admin_token, json=body, headers=headers)

    # Then 404 DEVICE_NOT_FOUND, as for a device nobody has, and nothing was published
    envelope(response, 404, "DEVICE_NOT_FOUND")
    settle()
    assert statuses(api, ana) == []
    assert author.ok(api, "GET", "/status/privacy")["type"] == "contacts"


def test_inline_size_limits(api: Any, envelope: Any) -> None:
    tenant = api.register()
    author = connected_device(api, tenant.admin_token)
    mp4 = b"\x00\x00\x00\x18ftypisom" + bytes(16 * 1024 * 1024)
    # A video over 16 MB: 400 VALIDATION_ERROR
    video = author.call(api, "POST", "/status/video", {"data_base64": base64.b64encode(mp4).decode()})
    envelope(video, 400, "VALIDATION_ERROR")
    # An image over the inline limit: 413, saying to use url
    image = author.call(
        api, "POST", "/status/image", {"data_base64": base64.b64encode(PNG + bytes(5 * 1024 * 1024)).decode()}
    )
    body = envelope(image, 413, "PAYLOAD_TOO_LARGE")
    assert "use url" in body["error"]
