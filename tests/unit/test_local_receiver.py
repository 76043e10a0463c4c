"""The local webhook receiver's signature verdicts (``make receiver``)."""

from __future__ import annotations

from gateway.webhooks.signing import body_bytes, body_signature, signed_envelope
from local_stack.receiver import signature_verdict, summary

ENVELOPE = {"id": "evt-1", "event": "message.received", "device_id": "d-1", "data": {"text": "hé"}}


def test_a_delivery_signed_with_the_secret_is_verified() -> None:
    # Given a delivery signed as the gateway signs it
    body = body_bytes(signed_envelope(ENVELOPE, "s3cret"))
    # Then both signatures check out
    assert signature_verdict(body, body_signature("s3cret", body), "s3cret") == "verified"


def test_a_wrong_secret_or_a_changed_body_is_reported() -> None:
    body = body_bytes(signed_envelope(ENVELOPE, "s3cret"))
    header = body_signature("s3cret", body)
    # A receiver holding another secret, or a body changed on the way, sees a bad signature
    assert signature_verdict(body, header, "other") == "BAD SIGNATURE"
    tampered = body.replace(b"evt-1", b"evt-2")
    assert signature_verdict(tampered, header, "s3cret") == "BAD SIGNATURE"
    # The header alone is not enough: the envelope's own signature field must match too
    unsigned = body_bytes(signed_envelope(ENVELOPE, None))
    assert signature_verdict(unsigned, body_signature("s3cret", unsigned), "s3cret") == "BAD SIGNATURE"


def test_unsigned_and_unchecked_deliveries_say_so() -> None:
    unsigned = body_bytes(signed_envelope(ENVELOPE, None))
    assert signature_verdict(unsigned, None, "s3cret") == "unsigned"
    signed = body_bytes(signed_envelope(ENVELOPE, "s3cret"))
    assert signature_verdict(signed, body_signature("s3cret", signed), None).startswith("not checked")


def test_summary_names_event_id_device_and_data() -> None:
    line = summary(body_bytes(ENVELOPE), "unsigned")
    assert line == 'message.received id=evt-1 device=d-1 [unsigned] {"text":"hé"}'
    assert summary(b"not json", "unsigned").startswith("(not JSON")
