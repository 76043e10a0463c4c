"""Signing of webhook deliveries, exactly as the decisions define it ("Webhooks", Signature).

* The envelope field ``signature`` is ``sha256=`` + the hex HMAC-SHA256, keyed by the secret,
  of the envelope *without* its ``signature`` field, serialised as compact JSON with sorted
  keys, UTF-8, non-ASCII kept (:func:`canonical_json`).
* The header ``X-Webhook-Signature-256`` is ``sha256=`` + the hex HMAC-SHA256 of the raw body
  bytes actually sent (:func:`body_signature`).

Both are keyed by the secret's UTF-8 bytes, whatever its form. Every signed delivery also
follows the Standard Webhooks specification ("Hostile conditions"), so that its libraries
verify it in any language and refuse a replay: ``webhook-signature`` is ``v1,`` + the base64
HMAC-SHA256 of ``{id}.{timestamp}.{body}`` (:meth:`Signer.standard_signature`), keyed by
:func:`standard_key`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

SIGNATURE_FIELD = "signature"
WHSEC_PREFIX = "whsec_"
"""A secret ``whsec_<base64>`` is a Standard Webhooks key: the base64 encodes its bytes."""

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""Compact, sorted, non-ASCII kept; one encoder for every call (``json.dumps`` with these
options builds a new one each time)."""


def whsec_key(secret: str) -> bytes | None:
    """The key bytes of a ``whsec_<base64>`` secret; ``None`` for a secret of any other form
    (no prefix, no key after it, or not canonical padded base64, which every Standard
    Webhooks library decodes alike)."""
    if not secret.startswith(WHSEC_PREFIX):
        return None
    try:
        return base64.b64decode(secret[len(WHSEC_PREFIX) :], validate=True) or None
    except binascii.Error:
        return None


def standard_key(secret: str) -> bytes:
    """The Standard Webhooks key of ``secret``: the decoded bytes of ``whsec_<base64>`` (as
    the Standard Webhooks libraries read such a secret), else the secret's UTF-8 bytes."""
    return whsec_key(secret) or secret.encode("utf-8")


class Signer:
    """HMAC-SHA256 keyed by one secret, the keys set up once: each signature continues a copy
    of the keyed state (a batch signs all of a configuration's events with one Signer)."""

    def __init__(self, secret: str) -> None:
        utf8 = secret.encode("utf-8")
        self._keyed = hmac.new(utf8, digestmod=hashlib.sha256)
        standard = standard_key(secret)
        self._standard = self._keyed if standard == utf8 else hmac.new(standard, digestmod=hashlib.sha256)

    def sign(self, payload: bytes) -> str:
        """``sha256=`` + the hex HMAC of ``payload``."""
        mac = self._keyed.copy()
        mac.update(payload)
        return "sha256=" + mac.hexdigest()

    def standard_signature(self, message_id: str, timestamp: int, body: bytes) -> str:
        """The ``webhook-signature`` header: ``v1,`` + the base64 HMAC of
        ``{message_id}.{timestamp}.{body}``. The timestamp is signed, so a receiver that
        refuses an old one refuses a replayed delivery."""
        mac = self._standard.copy()
        mac.update(f"{message_id}.{timestamp}.".encode())
        mac.update(body)
        return "v1," + base64.b64encode(mac.digest()).decode("ascii")


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
