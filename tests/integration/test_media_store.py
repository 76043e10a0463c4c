"""Media in the local stack's media bucket (moto's S3): stored under the tenant's and
device's keys, read back, and handed out through pre-signed URLs that only ever name the
caller's own media."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
import requests

from gateway.config import get_settings
from gateway.media import store
from gateway.media.errors import MediaNotFound
from local_stack.stack import LocalStack

JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 40


@pytest.fixture
def owner(stack: LocalStack) -> tuple[str, str]:
    """A fresh (tenant id, device id); the local stack's bucket exists once ``stack`` started."""
    return f"tenant-{uuid.uuid4().hex[:12]}", f"device-{uuid.uuid4().hex[:12]}"


def test_media_go_to_the_bucket_named_by_the_settings(owner: tuple[str, str], stack: LocalStack) -> None:
    # Given the local stack, which creates the template's bucket
    # When the settings are read
    # Then MEDIA_BUCKET names that bucket
    assert get_settings().media_bucket == stack.names["MediaBucket"]


def test_put_stores_under_the_tenants_device_and_get_reads_it_back(owner: tuple[str, str]) -> None:
    # Given a tenant's device
    tenant_id, device_id = owner

    # When media are stored
    stored = store.put(tenant_id, device_id, JPEG, "image/jpeg", "holiday photo é.jpg")

    # Then the key is scoped to the tenant and device, size and digest are the bytes'
    assert stored.key == f"{tenant_id}/{device_id}/{stored.media_id}"
    assert stored.size == len(JPEG)
    assert stored.sha256 == hashlib.sha256(JPEG).hexdigest()
    assert stored.mimetype == "image/jpeg"
    # And the media id names its device (GET /media/{media_id} finds the device from it)
    assert store.device_of(stored.media_id) == device_id
    # And the same bytes come back
    assert store.get(tenant_id, device_id, stored.media_id) == JPEG


def test_a_presigned_url_fetches_the_same_bytes(owner: tuple[str, str]) -> None:
    # Given stored media
    tenant_id, device_id = owner
    stored = store.put(tenant_id, device_id, JPEG, "image/jpeg", None)

    # When a pre-signed URL is made and fetched over HTTP, as a client would
    url = store.presigned_url(tenant_id, device_id, stored.media_id)
    assert url is not None
    response = requests.get(url, timeout=10)

    # Then it answers the stored bytes with their type, and the URL expires in 5 minutes
    assert response.status_code == 200
    assert response.content == JPEG
    assert response.headers["Content-Type"] == "image/jpeg"
    assert "X-Amz-Expires=300" in url


def test_another_tenants_media_are_absent(owner: tuple[str, str]) -> None:
    # Given media of one tenant's device
    tenant_id, device_id = owner
    stored = store.put(tenant_id, device_id, JPEG, "image/jpeg", None)

    # When another tenant (or another device) asks for the same media id
    other_tenant = store.presigned_url(f"other-{tenant_id}", device_id, stored.media_id)
    other_device = store.presigned_url(tenant_id, f"other-{device_id}", stored.media_id)

    # Then there is no such media for them
    assert other_tenant is None
    assert other_device is None
    with pytest.raises(MediaNotFound):
        store.get(f"other-{tenant_id}", device_id, stored.media_id)


@pytest.mark.parametrize(
    "media_id",
    ["{device}." + "0" * 32, "0" * 32, "../x", "a/b", "", "A" * 32, "{device}." + "A" * 32, "{device}/../x"],
)
def test_media_ids_the_gateway_did_not_make_name_nothing(owner: tuple[str, str], media_id: str) -> None:
    # Given a tenant's device
    tenant_id, device_id = owner
    media_id = media_id.format(device=device_id)

    # When a media id that does not exist, or is not of the gateway's shape, is asked for
    # Then nothing is found (no other key is ever formed from it)
    assert store.presigned_url(tenant_id, device_id, media_id) is None
    with pytest.raises(MediaNotFound):
        store.get(tenant_id, device_id, media_id)


def test_media_older_than_the_retention_are_gone_before_s3_deletes_them(owner: tuple[str, str]) -> None:
    # Given stored media, and a clock 31 days later (S3's lifecycle may not have run yet)
    tenant_id, device_id = owner
    stored = store.put(tenant_id, device_id, JPEG, "image/jpeg", None)
    later = datetime.now(UTC) + timedelta(days=31)

    # When a URL is asked for
    with mock.patch.object(store, "datetime", wraps=datetime) as clock:
        clock.now.return_value = later
        url = store.presigned_url(tenant_id, device_id, stored.media_id)

    # Then the media count as expired
    assert url is None


def test_a_key_part_that_is_not_an_id_is_refused() -> None:
    with pytest.raises(ValueError, match="not an id"):
        store.media_key("tenant/../other", "device", "0" * 32)
