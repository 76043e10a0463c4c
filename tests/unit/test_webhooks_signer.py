"""A Signer keys its HMAC once and signs many payloads: each signature must be exactly the one
a fresh HMAC of the same secret gives, whatever was signed before and from whichever thread."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading

from gateway.webhooks.signing import Signer, body_bytes, body_signature, canonical_json, signed_envelope


def fresh(secret: str, payload: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()


def test_a_reused_signer_gives_the_signature_of_a_fresh_hmac() -> None:
    signer = Signer("s3cret-é")
    payloads = [b"", b"{}", b'{"id":"e1"}', "é".encode() * 1000, b"{}"]

    # Each payload in turn, some twice: no state carries over from one signature to the next
    assert [signer.sign(payload) for payload in payloads] == [fresh("s3cret-é", p) for p in payloads]


def test_a_signer_shared_by_threads_signs_each_payload_alike() -> None:
    signer = Signer("shared")
    payloads = [f'{{"id":"e{index}"}}'.encode() for index in range(200)]
    signed: dict[bytes, str] = {}

    def sign(chunk: list[bytes]) -> None:
        for payload in chunk:
            signed[payload] = signer.sign(payload)

    threads = [threading.Thread(target=sign, args=(payloads[start::8],)) for start in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert signed == {payload: fresh("shared", payload) for payload in payloads}


def test_the_envelope_and_body_signed_with_a_signer_match_those_signed_with_the_secret() -> None:
    envelope = {"id": "e1", "event": "message.received", "timestamp": 1, "device_id": "d", "data": {"c": "é"}}
    signer = Signer("k")

    delivered = signed_envelope(envelope, signer)
    body = body_bytes(delivered)

    assert delivered == signed_envelope(envelope, "k")
    assert delivered["signature"] == fresh("k", canonical_json(envelope))
    assert body == json.dumps(delivered, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert body_signature(signer, body) == body_signature("k", body) == fresh("k", body)
