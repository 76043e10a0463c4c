"""Data access for tenants and users: every write that must be atomic is one transaction."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from pynamodb.connection import Connection
from pynamodb.exceptions import DoesNotExist, TransactWriteError
from pynamodb.transactions import TransactWrite

from gateway.config import get_settings
from gateway.models import DeviceModel, TenantModel, TokenModel, UniqueKeyModel, UserModel


class UniqueValueTaken(Exception):
    """A tenant name or email is claimed already."""


@lru_cache(maxsize=1)
def _connection() -> Connection:
    """One connection for every transaction: creating one builds a botocore session and client,
    which costs more than the transaction itself. Shared like the models' own connections."""
    return Connection(region=get_settings().aws_region)


def _cancelled_by_condition(error: TransactWriteError) -> bool:
    reasons = error.cancellation_reasons or []
    return any(reason is not None and reason.code == "ConditionalCheckFailed" for reason in reasons)


def create_tenant_with_admin(tenant: TenantModel, admin: UserModel, token: TokenModel) -> None:
    """Tenant, its first user, the token digest and both uniqueness claims, all or nothing."""
    _create(
        [tenant, admin, token],
        [
            UniqueKeyModel(UniqueKeyModel.tenant_name(tenant.name), owner_id=tenant.tenant_id),
            UniqueKeyModel(UniqueKeyModel.user_email(tenant.tenant_id, admin.email), owner_id=admin.user_id),
        ],
    )


def create_user(user: UserModel, token: TokenModel) -> None:
    _create(
        [user, token],
        [UniqueKeyModel(UniqueKeyModel.user_email(user.tenant_id, user.email), owner_id=user.user_id)],
    )


def _create(records: list, claims: list[UniqueKeyModel]) -> None:
    try:
        with TransactWrite(connection=_connection()) as transaction:
            for claim in claims:
                transaction.save(claim, condition=UniqueKeyModel.unique_key.does_not_exist())
            for record in records:
                hash_key = type(record)._hash_key_attribute()
                transaction.save(record, condition=hash_key.does_not_exist())
    except TransactWriteError as error:
        if _cancelled_by_condition(error):
            raise UniqueValueTaken from error
        raise


def get_tenant(tenant_id: str) -> TenantModel | None:
    try:
        return TenantModel.get(tenant_id)
    except DoesNotExist:
        return None


def scan_tenants() -> Iterator[TenantModel]:
    return TenantModel.scan()


def count_users(tenant_id: str) -> int:
    return UserModel.count(tenant_id)


def count_devices(tenant_id: str) -> int:
    return DeviceModel.count(tenant_id)


def get_token(token_hash: str) -> TokenModel | None:
    """The one read of every authenticated request: strongly consistent, so no stale grants."""
    try:
        return TokenModel.get(token_hash, consistent_read=True)
    except DoesNotExist:
        return None


def get_user(tenant_id: str, user_id: str) -> UserModel | None:
    try:
        return UserModel.get(tenant_id, user_id, consistent_read=True)
    except DoesNotExist:
        return None


def list_users(tenant_id: str) -> list[UserModel]:
    return list(UserModel.query(tenant_id))


def update_user_access(user: UserModel, *, active: bool, role: str, updated_at: str) -> None:
    """Change a user's access and its token record in one transaction."""
    with TransactWrite(connection=_connection()) as transaction:
        transaction.update(
            user,
            actions=[
                UserModel.active.set(active),
                UserModel.role.set(role),
                UserModel.updated_at.set(updated_at),
            ],
            condition=UserModel.user_id.exists(),
        )
        transaction.update(
            TokenModel(user.token_hash),
            actions=[TokenModel.active.set(active), TokenModel.role.set(role)],
            condition=TokenModel.token_hash.exists(),
        )


def delete_user_records(user: UserModel) -> None:
    """Token first, so the user's access ends before anything else goes."""
    TokenModel(user.token_hash).delete()
    UniqueKeyModel(UniqueKeyModel.user_email(user.tenant_id, user.email)).delete()
    user.delete()


def list_devices(tenant_id: str) -> list[DeviceModel]:
    return list(DeviceModel.query(tenant_id))


def delete_tenant_record(tenant: TenantModel) -> None:
    UniqueKeyModel(UniqueKeyModel.tenant_name(tenant.name)).delete()
    tenant.delete()
