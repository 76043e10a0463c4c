"""Standard Webhooks signatures, checked by the official ``standardwebhooks`` library as a
receiver would check them: the key of each secret form, and freshness (a replay is refused)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from gateway.webhooks.signing import Signer, standard_key, whsec_key

KEY = bytes(range(32))
WHSEC = "whsec_" + base64.b64encode(KEY).decode()
UTF8_SECRET = "receiver-shared-secret-ü"
BODY = '{"data":{"c":"grüße"},"event":"message.received","id":"e1"}'.encode()


def headers(signer: Signer, timestamp: int, message_id: str = "e1") -> dict[str, str]:
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signer.standard_signature(message_id, timestamp, BODY),
    }


@pytest.mark.parametrize(
    ("secret", "library_key"),
    [(WHSEC, WHSEC), (UTF8_SECRET, UTF8_SECRET.encode())],
    ids=["whsec", "utf-8"],
)
def test_the_library_verifies_a_signature_of_either_secret_form(
    secret: str, library_key: str | bytes
) -> None:
    # Given a delivery signed now, by a whsec_ key (the library decodes it) or any other
    # secret (its UTF-8 bytes are the key, given to the library as bytes)
    signed = headers(Signer(secret), int(time.time()))
    # Then the library verifies it, and refuses it with the other form's key or another body
    assert Webhook(library_key).verify(BODY, signed, json_parse=False) is None
    wrong = UTF8_SECRET.encode() if secret == WHSEC else WHSEC
    with pytest.raises(WebhookVerificationError):
        Webhook(wrong).verify(BODY, signed)
    with pytest.raises(WebhookVerificationError):
        Webhook(library_key).verify(BODY.replace(b"e1", b"e2"), signed)


def test_a_replayed_delivery_is_refused_once_its_timestamp_is_old() -> None:
    # Given deliveries signed 4 and 6 minutes ago (the library allows 5 minutes either way)
    signer = Signer(WHSEC)
    now = int(time.time())
    recent, stale = headers(signer, now - 240), headers(signer, now - 360)
    # Then the recent one verifies and the stale one, its signature intact, is refused
    Webhook(WHSEC).verify(BODY, recent)
    with pytest.raises(WebhookVerificationError, match="too old"):
        Webhook(WHSEC).verify(BODY, stale)
    # And a replayer cannot freshen it: the timestamp is signed
    freshened = {**stale, "webhook-timestamp": str(now)}
    with pytest.raises(WebhookVerificationError, match="No matching signature"):
        Webhook(WHSEC).verify(BODY, freshened)


def test_the_existing_signature_stays_keyed_by_the_secrets_utf8_bytes_whatever_its_form() -> None:
    # A whsec_ secret keys the Standard Webhooks signature by its decoded bytes, but the
    # X-Webhook-Signature-256 header and the envelope field by the whole string, as before
    expected = "sha256=" + hmac.new(WHSEC.encode(), BODY, hashlib.sha256).hexdigest()
    assert Signer(WHSEC).sign(BODY) == expected
    assert standard_key(WHSEC) == KEY


@pytest.mark.parametrize(
    "secret",
    ["whsec_", "whsec_not base64!", "whsec_" + base64.b64encode(KEY).decode().rstrip("="), "WHSEC_AAAA"],
    ids=["no-key", "not-base64", "unpadded", "upper-case"],
)
def test_a_secret_not_of_the_whsec_form_is_keyed_by_its_utf8_bytes(secret: str) -> None:
    # Stored before the rules refused them: no key, not canonical padded base64 (which every
    # library would decode alike), or another prefix; keyed as any other secret
    assert whsec_key(secret) is None
    assert standard_key(secret) == secret.encode()
    signed = headers(Signer(secret), int(time.time()))
    Webhook(secret.encode()).verify(BODY, signed)
