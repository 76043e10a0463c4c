"""The local webhook receiver's signature verdicts (``make receiver``)."""

from __future__ import annotations

import base64
import time

import pytest

from gateway.webhooks.signing import Signer, body_bytes, signed_envelope
from local_stack.receiver import signature_verdict, summary

ENVELOPE = {"id": "evt-1", "event": "message.received", "device_id": "d-1", "data": {"text": "hé"}}
SECRET = "local-webhook-s3cret"
WHSEC = "whsec_" + base64.b64encode(bytes(range(32))).decode()


def delivery(secret: str, sent_at: int | None = None) -> tuple[bytes, dict[str, str]]:
    """The body and signature headers of a delivery signed as the gateway signs it."""
    body = body_bytes(signed_envelope(ENVELOPE, secret))
    timestamp = int(time.time()) if sent_at is None else sent_at
    signer = Signer(secret)
    return body, {
        "X-Webhook-Signature-256": signer.sign(body),
        "webhook-id": "evt-1",
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signer.standard_signature("evt-1", timestamp, body),
    }


@pytest.mark.parametrize("secret", [SECRET, WHSEC, "s3cret"], ids=["utf-8", "whsec", "stored-short"])
def test_a_delivery_signed_with_the_secret_is_verified(secret: str) -> None:
    # Given a delivery signed as the gateway signs it, with either form of secret
    body, headers = delivery(secret)
    # Then its three signatures check out
    assert signature_verdict(body, headers, secret) == "verified"


def test_a_wrong_secret_or_a_changed_body_is_reported() -> None:
    body, headers = delivery(SECRET)
    # A receiver holding another secret sees every signature fail
    verdict = signature_verdict(body, headers, "another-secret-16")
    assert verdict.startswith("BAD SIGNATURE (signature field; X-Webhook-Signature-256; webhook-signature: ")
    # So does a body changed on the way
    tampered = body.replace(b"evt-1", b"evt-2")
    assert signature_verdict(tampered, headers, SECRET).startswith("BAD SIGNATURE (signature field; ")
    # The headers alone are not enough: the envelope's own signature field must match too
    unsigned = body_bytes(signed_envelope(ENVELOPE, None))
    signer = Signer(SECRET)
    headers = {**delivery(SECRET)[1], "X-Webhook-Signature-256": signer.sign(unsigned)}
    assert signature_verdict(unsigned, headers, SECRET).startswith("BAD SIGNATURE (signature field")


def test_a_replayed_delivery_is_reported_by_the_standard_webhooks_library() -> None:
    # Given a delivery signed 10 minutes ago, sent again now
    body, headers = delivery(SECRET, sent_at=int(time.time()) - 600)
    # Then its Standard Webhooks signature is refused as too old (the others cannot tell)
    assert (
        signature_verdict(body, headers, SECRET)
        == "BAD SIGNATURE (webhook-signature: Message timestamp too old)"
    )


def test_a_delivery_without_the_standard_webhooks_headers_is_reported() -> None:
    body, headers = delivery(SECRET)
    legacy = {"X-Webhook-Signature-256": headers["X-Webhook-Signature-256"]}
    assert (
        signature_verdict(body, legacy, SECRET)
        == "BAD SIGNATURE (webhook-signature: Missing required headers)"
    )
    malformed = {**headers, "webhook-signature": "no-version"}
    assert signature_verdict(body, malformed, SECRET).startswith("BAD SIGNATURE (webhook-signature: ")


def test_unsigned_and_unchecked_deliveries_say_so() -> None:
    unsigned = body_bytes(signed_envelope(ENVELOPE, None))
    assert signature_verdict(unsigned, {}, SECRET) == "unsigned"
    body, headers = delivery(SECRET)
    assert signature_verdict(body, headers, None).startswith("not checked")


def test_summary_names_event_id_device_and_data() -> None:
    line = summary(body_bytes(ENVELOPE), "unsigned")
    assert line == 'message.received id=evt-1 device=d-1 [unsigned] {"text":"hé"}'
    assert summary(b"not json", "unsigned").startswith("(not JSON")
