"""Authentication and authorisation as FastAPI dependencies.

Tokens are read only from the ``Authorization`` header: never from query parameters,
cookies or form fields. A user token costs exactly one strongly consistent DynamoDB read
and is never cached, so a deactivation applies from the very next request.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from functools import lru_cache

from fastapi import Depends, Request, Security
from fastapi.security import HTTPBearer

from gateway import aws
from gateway.accounts import store
from gateway.accounts.credentials import is_uuid4, token_digest
from gateway.accounts.roles import Principal, Role
from gateway.config import get_settings
from gateway.errors import (
    insufficient_permissions,
    invalid_master_token,
    invalid_token,
    master_token_required,
    super_admin_disabled,
)


def bearer_token(request: Request) -> str | None:
    """The token of ``Authorization: Bearer <token>`` (scheme in any case) or of a bare token."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    parts = header.strip().split()
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2 and parts[0].lower() == "bearer":
        return parts[1]
    return ""


class _BearerToken(HTTPBearer):
    """An HTTP bearer security scheme that reads the header with :func:`bearer_token`.

    Declaring the schemes makes the OpenAPI document mark every route with the token it needs;
    reading the header our own way keeps bare tokens accepted, and refusals are left to the
    dependencies below, so their bodies stay the specification's.
    """

    async def __call__(self, request: Request) -> str | None:  # type: ignore[override]
        return bearer_token(request)


user_token = _BearerToken(
    scheme_name="UserToken",
    bearerFormat="UUID",
    description="A user's token (UUID v4), issued by POST /register or POST /users. "
    "The `Bearer` word may be left out.",
    auto_error=False,
)
master_token = _BearerToken(
    scheme_name="MasterToken",
    description="The platform's master token, for the master-only routes. The `Bearer` word may be left out.",
    auto_error=False,
)


def current_principal(token: str | None = Security(user_token)) -> Principal:
    """The calling user, or 401 ``Invalid token``."""
    if not token or not is_uuid4(token):
        raise invalid_token()
    record = store.get_token(token_digest(token))
    if record is None or not record.active:
        raise invalid_token()
    return Principal(tenant_id=record.tenant_id, user_id=record.user_id, role=Role(record.role))


def require_roles(*roles: Role) -> Callable[[Principal], Principal]:
    """A dependency admitting the given roles; an admin is admitted on every role-gated route."""
    allowed = {Role.ADMIN, *roles}

    def dependency(principal: Principal = Depends(current_principal)) -> Principal:
        if principal.role not in allowed:
            raise insufficient_permissions()
        return principal

    return dependency


@lru_cache(maxsize=1)
def _master_token() -> str:
    """The platform master token: from the environment locally, from Secrets Manager on AWS."""
    settings = get_settings()
    if settings.master_token is not None:
        return settings.master_token.get_secret_value()
    if settings.master_token_secret_arn:
        from aws_lambda_powertools.utilities.parameters import SecretsProvider

        secrets = SecretsProvider(boto3_client=aws.client("secretsmanager"))
        return str(secrets.get(settings.master_token_secret_arn))
    return ""


def require_master(token: str | None = Security(master_token)) -> None:
    """Master-only routes: 403 when disabled, 401 with the specification's two bodies otherwise."""
    if not get_settings().super_admin_enabled:
        raise super_admin_disabled()
    if token is None:
        raise master_token_required()
    expected = _master_token()
    if not expected or not token or not hmac.compare_digest(token.encode(), expected.encode()):
        raise invalid_master_token()
