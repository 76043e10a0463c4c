"""What the error modules share: a valid POST /users body, for requests that must otherwise succeed."""

from __future__ import annotations

import uuid


def valid_user_body() -> dict[str, str]:
    return {"email": f"e-{uuid.uuid4().hex[:10]}@example.com", "password": "secret123", "role": "user"}
