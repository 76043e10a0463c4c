"""Data access for tenants and users: every write that must be atomic is one transaction.

A tenant's ``users_count`` changes in the transaction that creates the user, so the count
is exact without counting (users are deleted only with their tenant).
"""

from __future__ import annotations

from pynamodb.exceptions import DoesNotExist, TransactWriteError, UpdateError
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from gateway.models import TenantModel, TokenModel, UniqueKeyModel, UserModel
from gateway.models.base import TenantGone, failed_conditions, key_attributes, transaction_connection
from gateway.pagination import Listing, Page, PageRequest, read_page

TENANTS = "tenants"
USERS = "users"


class UniqueValueTaken(Exception):
    """A tenant name or email is claimed already."""


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
    """The user, its token digest and its email claim, and one more user on the tenant's count.

    Raises :class:`UniqueValueTaken` when the email is claimed, :class:`TenantGone` when the
    tenant was deleted meanwhile.
    """
    _create(
        [user, token],
        [UniqueKeyModel(UniqueKeyModel.user_email(user.tenant_id, user.email), owner_id=user.user_id)],
        counted_in=user.tenant_id,
    )


def _create(records: list[Model], claims: list[UniqueKeyModel], counted_in: str | None = None) -> None:
    try:
        with TransactWrite(connection=transaction_connection()) as transaction:
            for claim in claims:
                transaction.save(claim, condition=UniqueKeyModel.unique_key.does_not_exist())
            for record in records:
                hash_key, _ = key_attributes(type(record))
                transaction.save(record, condition=hash_key.does_not_exist())
            if counted_in is not None:
                transaction.update(
                    TenantModel(counted_in),
                    actions=[TenantModel.users_count.add(1)],
                    condition=TenantModel.tenant_id.exists(),
                )
    except TransactWriteError as error:
        # PynamoDB sends the puts before the updates: the tenant's reason comes last.
        failed = failed_conditions(error)
        puts_failed = failed[:-1] if counted_in is not None else failed
        if any(puts_failed):
            raise UniqueValueTaken from error
        if any(failed):
            raise TenantGone from error
        raise


def get_tenant(tenant_id: str) -> TenantModel | None:
    try:
        return TenantModel.get(tenant_id)
    except DoesNotExist:
        return None


def set_max_devices(tenant_id: str, max_devices: int | None, updated_at: str) -> TenantModel | None:
    """Set (None: remove) the tenant's device limit; the tenant as it is now, or None when
    there is no such tenant. Devices it has already are kept: the limit refuses new ones."""
    limit = (
        TenantModel.max_devices.remove() if max_devices is None else TenantModel.max_devices.set(max_devices)
    )
    tenant = TenantModel(tenant_id)
    try:
        tenant.update(
            actions=[limit, TenantModel.updated_at.set(updated_at)], condition=TenantModel.tenant_id.exists()
        )
    except UpdateError as error:
        if error.cause_response_code == "ConditionalCheckFailedException":
            return None
        raise
    return tenant


def tenants_page(request: PageRequest) -> Page[TenantModel]:
    """A page of every tenant, counts included: one Scan, in the table's order."""
    return read_page(Listing(TENANTS, TenantModel), request)


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


def users_page(tenant_id: str, request: PageRequest) -> Page[UserModel]:
    """A page of the tenant's users, by id: one Query."""
    return read_page(Listing(USERS, UserModel, partition=tenant_id), request)


def update_user_access(user: UserModel, *, active: bool, role: str, updated_at: str) -> None:
    """Change a user's access and its token record in one transaction."""
    with TransactWrite(connection=transaction_connection()) as transaction:
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


def delete_users(users: list[UserModel]) -> None:
    """Delete the users' records in batches (25 items a call): every token first, so the
    users' access ends before anything else goes, then their email claims and the users."""
    with TokenModel.batch_write() as tokens:
        for user in users:
            tokens.delete(TokenModel(user.token_hash))
    with UniqueKeyModel.batch_write() as claims:
        for user in users:
            claims.delete(UniqueKeyModel(UniqueKeyModel.user_email(user.tenant_id, user.email)))
    with UserModel.batch_write() as records:
        for user in users:
            records.delete(user)


def delete_tenant_record(tenant: TenantModel) -> None:
    UniqueKeyModel(UniqueKeyModel.tenant_name(tenant.name)).delete()
    tenant.delete()
