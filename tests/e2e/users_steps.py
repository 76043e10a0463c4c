"""What the user management modules share: a new user's body, reading a user back, the 403 body."""

from __future__ import annotations

import uuid

INSUFFICIENT_PERMISSIONS = {"error": "Insufficient permissions"}


def new_user(role: str = "user", **extra: object) -> dict[str, object]:
    return {
        "email": f"person-{uuid.uuid4().hex[:10]}@example.com",
        "password": "secret123",
        "role": role,
        **extra,
    }


def fetch_user(api, tenant, user_id: str) -> dict[str, object]:
    response = api.request("GET", f"/users/{user_id}", tenant.admin_token)
    assert response.status_code == 200, response.text
    return response.json()["user"]
