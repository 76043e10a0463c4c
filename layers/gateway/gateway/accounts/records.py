"""Building a new user's records: the user, its token record, and the only copy of the token."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from gateway.accounts.credentials import hash_password, new_token, token_digest
from gateway.accounts.roles import Role
from gateway.models import TokenModel, UserModel


@dataclass(frozen=True)
class NewUser:
    user: UserModel
    token_record: TokenModel
    token: str


def new_user(
    tenant_id: str, email: str, password: str, role: Role, webhook_url: str | None, now: str
) -> NewUser:
    """The records of a new user, not yet saved. Only the token's digest goes into them."""
    token = new_token()
    user = UserModel(
        tenant_id,
        str(uuid.uuid4()),
        email=email.lower(),
        role=role.value,
        active=True,
        password_hash=hash_password(password),
        token_hash=token_digest(token),
        pending_webhook_url=webhook_url,
        created_at=now,
        updated_at=now,
    )
    token_record = TokenModel(user.token_hash, tenant_id=tenant_id, user_id=user.user_id, role=user.role)
    return NewUser(user, token_record, token)
