"""Signing of webhook deliveries, exactly as the decisions define it ("Webhooks", Signature).

* The envelope field ``signature`` is ``sha256=`` + the hex HMAC-SHA256, keyed by the secret,
  of the envelope *without* its ``signature`` field, serialised as compact JSON with sorted
  keys, UTF-8, non-ASCII kept (:func:`canonical_json`).
* The header ``X-Webhook-Signature-256`` is ``sha256=`` + the hex HMAC-SHA256 of the raw body
  bytes actually sent (:func:`body_signature`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

SIGNATURE_FIELD = "signature"


def canonical_json(envelope: Mapping[str, Any]) -> bytes:
    """The bytes the envelope signature covers: compact, sorted keys, UTF-8, no signature."""
    unsigned = {key: value for key, value in envelope.items() if key != SIGNATURE_FIELD}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def hmac_sha256(secret: str, payload: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), payload, hashlib.sha256).hexdigest()


def signed_envelope(envelope: Mapping[str, Any], secret: str | None) -> dict[str, Any]:
    """The envelope as delivered: with ``signature`` when a secret is set, without it otherwise."""
    unsigned = {key: value for key, value in envelope.items() if key != SIGNATURE_FIELD}
    if not secret:
        return unsigned
    return {**unsigned, SIGNATURE_FIELD: hmac_sha256(secret, canonical_json(unsigned))}


def body_bytes(envelope: Mapping[str, Any]) -> bytes:
    """The request body: the delivered envelope as compact, sorted JSON (the same form as signed)."""
    return json.dumps(envelope, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def body_signature(secret: str, body: bytes) -> str:
    """The ``X-Webhook-Signature-256`` header value for ``body``."""
    return hmac_sha256(secret, body)
