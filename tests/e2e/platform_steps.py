"""What the platform modules share: a unique tenant name and a registration body that succeeds."""

from __future__ import annotations

import uuid


def unique_name(prefix: str = "tenant") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def registration(name: str | None = None, **extra: object) -> dict[str, object]:
    name = name or unique_name()
    return {
        "tenant_name": name,
        "email": f"owner-{uuid.uuid4().hex[:8]}@example.com",
        "password": "secret123",
        **extra,
    }
