"""Media bytes in the media bucket, under keys a tenant cannot step out of.

Every object is ``<tenant_id>/<device_id>/<media_id>``: the tenant and device come from the
caller's authentication, never from the request, and ``media_id`` is an id the gateway
made, so a request can only ever name its own tenant's media. A ``media_id`` of any other
shape names nothing (``None`` / :class:`MediaNotFound`), never another key.

A ``media_id`` is ``<device_id>.<32 random hex>``: it names its device, so GET
/media/{media_id} finds the device to check the caller may see (:func:`device_of`) with no
index and no scan, and a media id only ever names a key under that same device.

One S3 client per process, made on first use (boto3 clients are thread-safe).
"""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from botocore.config import Config
from botocore.exceptions import ClientError

from gateway import aws
from gateway.config import get_settings
from gateway.media.errors import MediaNotFound
from gateway.media.limits import MEDIA_RETENTION_DAYS, PRESIGNED_URL_SECONDS

_MEDIA_ID = re.compile(r"^(?P<device_id>[A-Za-z0-9_:-]{1,128})\.(?P<random>[0-9a-f]{32})$")
# Tenant and device ids are the gateway's own; this only keeps a key's parts from being paths.
_KEY_PART = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
_MISSING = {"404", "NoSuchKey", "NotFound"}


@dataclass(frozen=True)
class StoredMedia:
    """What a stored media is: the send and the ``message.received`` event carry these."""

    media_id: str
    key: str
    size: int
    sha256: str
    mimetype: str


@lru_cache(maxsize=1)
def s3_client() -> Any:
    """The process's S3 client (``AWS_ENDPOINT_URL`` points it at moto in the local stack)."""
    return aws.client("s3", Config(signature_version="s3v4", retries={"mode": "standard"}))


def media_key(tenant_id: str, device_id: str, media_id: str) -> str:
    """The object key of a media; raises ``ValueError`` for a part that is not an id."""
    for part in (tenant_id, device_id, media_id):
        if not _KEY_PART.match(part) or part in (".", ".."):
            raise ValueError(f"not an id for a media key: {part!r}")
    return f"{tenant_id}/{device_id}/{media_id}"


def put(
    tenant_id: str, device_id: str, data: bytes, mimetype: str, filename: str | None = None
) -> StoredMedia:
    """Store ``data`` under a new media id of the tenant's device."""
    stored, extra = prepare(tenant_id, device_id, data, mimetype, filename)
    s3_client().put_object(Bucket=get_settings().media_bucket, Key=stored.key, Body=data, **extra)
    return stored


def prepare(
    tenant_id: str, device_id: str, data: bytes, mimetype: str, filename: str | None = None
) -> tuple[StoredMedia, dict[str, Any]]:
    """A new media id of the tenant's device for ``data``, and the object's S3 arguments
    (``ContentType``, ``Metadata``) for whatever uploads it (:func:`put`, or a managed transfer)."""
    media_id = f"{device_id}.{uuid.uuid4().hex}"
    key = media_key(tenant_id, device_id, media_id)
    sha256 = hashlib.sha256(data).hexdigest()
    metadata = {"sha256": sha256}
    if filename:
        metadata["filename"] = quote(filename, safe="")  # S3 metadata is ASCII
    stored = StoredMedia(media_id=media_id, key=key, size=len(data), sha256=sha256, mimetype=mimetype)
    return stored, {"ContentType": mimetype, "Metadata": metadata}


def get(tenant_id: str, device_id: str, media_id: str) -> bytes:
    """The bytes of a media of the tenant's device; :class:`MediaNotFound` when there are none."""
    key = _key_or_none(tenant_id, device_id, media_id)
    if key is None:
        raise MediaNotFound("no such media")
    try:
        response = s3_client().get_object(Bucket=get_settings().media_bucket, Key=key)
    except ClientError as error:
        if is_missing(error):
            raise MediaNotFound("no such media") from None
        raise
    if _expired(response["LastModified"]):
        raise MediaNotFound("the media has expired")
    data: bytes = response["Body"].read()
    return data


def presigned_url(
    tenant_id: str, device_id: str, media_id: str, seconds: int = PRESIGNED_URL_SECONDS
) -> str | None:
    """A GET URL of the media valid ``seconds``; None when there is no such media or it has
    expired (the route answers 404 ``MEDIA_NOT_FOUND``)."""
    key = _key_or_none(tenant_id, device_id, media_id)
    if key is None:
        return None
    bucket = get_settings().media_bucket
    try:
        head = s3_client().head_object(Bucket=bucket, Key=key)
    except ClientError as error:
        if is_missing(error):
            return None
        raise
    if _expired(head["LastModified"]):
        return None
    url: str = s3_client().generate_presigned_url(
        "get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=seconds
    )
    return url


def delete_all(tenant_id: str, device_id: str | None = None, *, under: str = "") -> int:
    """Delete every media of the device (of the whole tenant when ``device_id`` is None),
    sent or received, or the objects keyed the same way below the prefix ``under`` (the
    claim-checked envelopes); how many objects there were. A page of keys (up to 1,000) and
    one DeleteObjects call at a time."""
    parts = (tenant_id,) if device_id is None else (tenant_id, device_id)
    for part in parts:
        if not _KEY_PART.match(part) or part in (".", ".."):
            raise ValueError(f"not an id for a media key: {part!r}")
    bucket = get_settings().media_bucket
    deleted = 0
    prefix = under + "/".join(parts) + "/"
    pages = s3_client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    for page in pages:
        objects = [{"Key": item["Key"]} for item in page.get("Contents", [])]
        if objects:
            answer = s3_client().delete_objects(Bucket=bucket, Delete={"Objects": objects, "Quiet": True})
            if answer.get("Errors"):
                raise RuntimeError(f"media not deleted: {answer['Errors'][:3]}")
            deleted += len(objects)
    return deleted


def device_of(media_id: str) -> str | None:
    """The device a ``media_id`` belongs to; None for an id the gateway cannot have made."""
    match = _MEDIA_ID.match(media_id)
    return match["device_id"] if match else None


def _key_or_none(tenant_id: str, device_id: str, media_id: str) -> str | None:
    """The key, or None for a ``media_id`` the gateway cannot have made for this device."""
    if device_of(media_id) != device_id:
        return None
    return media_key(tenant_id, device_id, media_id)


def _expired(last_modified: datetime) -> bool:
    """S3 runs lifecycle expiry up to a day or two late; past the retention the media are gone."""
    return datetime.now(UTC) - last_modified > timedelta(days=MEDIA_RETENTION_DAYS)


def is_missing(error: ClientError) -> bool:
    """Whether S3 answered that the object is not there (GetObject, HeadObject)."""
    return str(error.response.get("Error", {}).get("Code", "")) in _MISSING
