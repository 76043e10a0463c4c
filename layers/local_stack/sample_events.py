"""The sample events of ``events/`` (API Gateway requests, an SQS batch), ready for a Lambda handler.

Shared by the handler tests and the cold-start bench so both drive the same payloads.
"""

from __future__ import annotations

import json
from typing import Any

from local_stack.template import REPO_ROOT

EVENTS_DIR = REPO_ROOT / "events"


def load_event(name: str, body: dict[str, Any] | None = None, **values: str) -> dict[str, Any]:
    """The sample event ``name`` with its placeholders replaced (``master_token=...`` etc.).

    ``body`` replaces the JSON body (and its content-length), e.g. to make a tenant name unique.
    """
    text = (EVENTS_DIR / f"{name}.json").read_text()
    for key, value in values.items():
        text = text.replace(f"REPLACE_WITH_{key.upper()}", value)
    event: dict[str, Any] = json.loads(text)
    if body is not None:
        event["body"] = json.dumps(body, separators=(",", ":"))
        event["headers"]["content-length"] = str(len(event["body"].encode()))
    return event
