"""Received media end to end: a contact sends an image on the simulated network → the session
host stores the bytes in the media bucket → ``message.received`` reaches the webhook receiver
with ``media_path`` → GET ``media_path`` redirects to a pre-signed URL of the same bytes, for
users who can see the device only."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
import requests
from device_flows import simulator
from group_flows import Phone, connected_device, contact

from gateway.media import store

pytestmark = pytest.mark.e2e

Envelope = Callable[..., dict[str, Any]]
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 16


@dataclass(frozen=True)
class ReceivedImage:
    device: Phone
    event: dict[str, Any]

    @property
    def media(self) -> dict[str, Any]:
        return self.event["data"]["media"]


def get_media(api: Any, path: str, token: str | None) -> requests.Response:
    return api.request("GET", path, token, allow_redirects=False)


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def receive_image(api: Any, events: Any, token: str) -> ReceivedImage:
    """A connected device of ``token``'s user that a contact sent an image; its event."""
    device = connected_device(api, token)
    assert device.device_id is not None
    events.subscribe(api, token, device.device_id)
    sender = contact(api)
    media = {
        "kind": "image",
        "data_base64": base64.b64encode(PNG).decode(),
        "mimetype": "image/png",
        "caption": "the receipt",
    }
    simulator(api, "POST", f"/accounts/{sender.phone}/messages", to=device.jid, media=media)
    (event,) = events.wait_for(device.device_id, "message.received")
    return ReceivedImage(device, event)


def test_a_received_image_is_downloaded_through_its_media_path(api: Any, tenant: Any, events: Any) -> None:
    # Given a user's device that a contact sent an image
    _, token = api.create_user(tenant, "user")
    received = receive_image(api, events, token)

    # Then message.received names where the bytes are, with their size and digest
    media = received.media
    assert media["media_path"].startswith("/media/")
    assert media["size"] == len(PNG)
    assert media["sha256"] == hashlib.sha256(PNG).hexdigest()
    assert media["mime_type"] == "image/png"
    assert media["caption"] == "the receipt"

    # When the device's owner GETs the media path
    response = get_media(api, media["media_path"], token)

    # Then it is redirected to a pre-signed URL valid 5 minutes, which serves the same bytes
    assert response.status_code == 302, response.text
    location = response.headers["Location"]
    assert "X-Amz-Expires=300" in location
    download = requests.get(location, timeout=10)
    assert download.status_code == 200
    assert download.content == PNG


def test_an_admin_of_the_tenant_sees_a_users_media(api: Any, tenant: Any, events: Any) -> None:
    # Given a plain user's received image
    _, token = api.create_user(tenant, "user")
    received = receive_image(api, events, token)

    # When the tenant's admin (who sees every device of the tenant) GETs it
    response = get_media(api, received.media["media_path"], tenant.admin_token)

    # Then the admin is redirected to the bytes too
    assert response.status_code == 302, response.text


def test_only_users_who_can_see_the_device_get_the_media(
    api: Any, tenant: Any, events: Any, envelope: Envelope
) -> None:
    # Given a user's received image
    _, token = api.create_user(tenant, "user")
    path = receive_image(api, events, token).media["media_path"]
    # And another user of the same tenant, and another tenant's admin
    _, colleague = api.create_user(tenant, "user")
    stranger = api.register().admin_token

    # When they ask for the media, Then it does not exist for them
    envelope(get_media(api, path, colleague), 404, "MEDIA_NOT_FOUND")
    envelope(get_media(api, path, stranger), 404, "MEDIA_NOT_FOUND")
    # And without a token the request is not authenticated
    assert get_media(api, path, None).status_code == 401


@pytest.mark.parametrize("media_id", ["0" * 32, "not-a-media-id", "{device}." + "0" * 32])
def test_an_unknown_media_id_is_not_found(api: Any, tenant: Any, envelope: Envelope, media_id: str) -> None:
    # Given a user with a device
    _, token = api.create_user(tenant, "user")
    device = connected_device(api, token)

    # When an id the gateway never gave out is asked for (even one shaped like the device's)
    response = get_media(api, f"/media/{media_id.format(device=device.device_id)}", token)

    # Then the media are not found
    envelope(response, 404, "MEDIA_NOT_FOUND")


def test_a_media_past_the_retention_is_not_found(
    api: Any, tenant: Any, events: Any, envelope: Envelope
) -> None:
    # Given a user's received image, and a clock 31 days later (S3's lifecycle may lag)
    _, token = api.create_user(tenant, "user")
    path = receive_image(api, events, token).media["media_path"]
    later = datetime.now(UTC) + timedelta(days=31)

    # When the owner asks for it
    with mock.patch.object(store, "datetime", wraps=datetime) as clock:
        clock.now.return_value = later
        response = get_media(api, path, token)

    # Then it has expired
    envelope(response, 404, "MEDIA_NOT_FOUND")
