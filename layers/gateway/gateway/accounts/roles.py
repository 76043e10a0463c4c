"""Roles and the rules for who may change whom."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from gateway.errors import conflict, insufficient_permissions
from gateway.failures.codes import ErrorCode


class Role(StrEnum):
    ADMIN = "admin"
    MANAGER = "manager"
    USER = "user"


@dataclass(frozen=True)
class Principal:
    """Who is calling: resolved from the token, never from anything the client says."""

    tenant_id: str
    user_id: str
    role: Role


def check_user_update(
    caller: Principal, target_id: str, target_role: Role, new_active: bool | None, new_role: Role | None
) -> None:
    """Raise unless ``caller`` may apply this change to the target user.

    admin: anything in the tenant, except deactivating or demoting itself (409 CONFLICT).
    manager: ``active`` on managers and users, roles between user and manager; never admins.
    user: nothing.
    """
    if caller.role is Role.ADMIN:
        if target_id == caller.user_id and (new_active is False or new_role not in (None, Role.ADMIN)):
            raise conflict(ErrorCode.CONFLICT, "an admin cannot deactivate or demote itself")
        return
    if caller.role is Role.MANAGER:
        if target_role is Role.ADMIN or new_role is Role.ADMIN:
            raise insufficient_permissions()
        return
    raise insufficient_permissions()
