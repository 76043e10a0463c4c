"""docs/webhooks.md's Python example of Standard Webhooks verification, run as a reader would
copy it, against deliveries signed as the gateway signs them: it must accept a fresh one for
both forms of secret, and refuse a tampered or replayed one."""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path
from typing import Any

import pytest

from gateway.webhooks.signing import Signer

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"
PLACEHOLDER = 'SECRET = "whsec_..."'
BODY = '{"data":{"content":"grüße ✓"},"event":"message.received","id":"e1","timestamp":1}'.encode()


def example(secret: str) -> Any:
    """The example's ``verified_event``, with ``secret`` where it says to put the secret."""
    block = re.search(r"```python\n(from standardwebhooks import .*?)```", DOC.read_text(), re.DOTALL)
    assert block, "docs/webhooks.md has no Python example using standardwebhooks"
    assert PLACEHOLDER in block.group(1)
    namespace: dict[str, Any] = {}
    exec(block.group(1).replace(PLACEHOLDER, f"SECRET = {secret!r}"), namespace)  # noqa: S102 - our doc
    return namespace["verified_event"]


def signed(secret: str, sent_at: int) -> dict[str, str]:
    signature = Signer(secret).standard_signature("e1", sent_at, BODY)
    return {"Webhook-Id": "e1", "Webhook-Timestamp": str(sent_at), "Webhook-Signature": signature}


@pytest.mark.parametrize(
    "secret",
    ["whsec_" + base64.b64encode(bytes(range(32))).decode(), "receiver-shared-secret-ü"],
    ids=["whsec", "utf-8"],
)
def test_the_documented_example_verifies_fresh_deliveries_and_refuses_replays(secret: str) -> None:
    verified_event = example(secret)
    now = int(time.time())
    assert verified_event(BODY, signed(secret, now)) == {
        "data": {"content": "grüße ✓"},
        "event": "message.received",
        "id": "e1",
        "timestamp": 1,
    }
    assert verified_event(BODY.replace(b"e1", b"e2"), signed(secret, now)) is None
    assert verified_event(BODY, signed(secret, now - 360)) is None
