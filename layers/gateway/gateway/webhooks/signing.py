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

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""Compact, sorted, non-ASCII kept; one encoder for every call (``json.dumps`` with these
options builds a new one each time)."""


class Signer:
    """HMAC-SHA256 keyed by one secret, the key set up once: each signature continues a copy
    of the keyed state (a batch signs all of a configuration's events with one Signer)."""

    def __init__(self, secret: str) -> None:
        self._keyed = hmac.new(secret.encode("utf-8"), digestmod=hashlib.sha256)

    def sign(self, payload: bytes) -> str:
        """``sha256=`` + the hex HMAC of ``payload``."""
        mac = self._keyed.copy()
        mac.update(payload)
        return "sha256=" + mac.hexdigest()


def canonical_json(envelope: Mapping[str, Any]) -> bytes:
    """The bytes the envelope signature covers: compact, sorted keys, UTF-8, no signature."""
    unsigned = {key: value for key, value in envelope.items() if key != SIGNATURE_FIELD}
    return _CANONICAL.encode(unsigned).encode("utf-8")


def hmac_sha256(secret: str, payload: bytes) -> str:
    return Signer(secret).sign(payload)


def signed_envelope(envelope: Mapping[str, Any], secret: str | Signer | None) -> dict[str, Any]:
    """The envelope as delivered: with ``signature`` when a secret is set, without it otherwise."""
    unsigned = {key: value for key, value in envelope.items() if key != SIGNATURE_FIELD}
    if not secret:
        return unsigned
    return {**unsigned, SIGNATURE_FIELD: _signer(secret).sign(canonical_json(unsigned))}


def body_bytes(envelope: Mapping[str, Any]) -> bytes:
    """The request body: the delivered envelope as compact, sorted JSON (the same form as signed)."""
    return _CANONICAL.encode(envelope).encode("utf-8")


def body_signature(secret: str | Signer, body: bytes) -> str:
    """The ``X-Webhook-Signature-256`` header value for ``body``."""
    return _signer(secret).sign(body)


def _signer(secret: str | Signer) -> Signer:
    """A batch passes its Signer (keyed once); other callers pass the secret."""
    return secret if isinstance(secret, Signer) else Signer(secret)
