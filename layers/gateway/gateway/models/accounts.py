"""Tenants, users, token digests and uniqueness keys."""

from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from gateway.models.base import GatewayModel, table_meta


class TenantModel(GatewayModel):
    """A tenant, with the number of its users and devices, and its device limit.

    The counts change in the same transaction as the user or device they count (see
    ``accounts.store`` and ``devices.store``), so listing tenants reads this table alone, and
    a new device is counted only while ``devices_count`` is under ``max_devices`` (absent:
    no limit), in that same conditional write.
    """

    Meta = table_meta("tenants_table")

    tenant_id = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute()
    users_count = NumberAttribute(default=0)
    devices_count = NumberAttribute(default=0)
    max_devices = NumberAttribute(null=True)
    created_at = UnicodeAttribute()
    updated_at = UnicodeAttribute()


class UserModel(GatewayModel):
    """A user of a tenant. The token itself is never stored, only its digest (TokenModel)."""

    Meta = table_meta("users_table")

    tenant_id = UnicodeAttribute(hash_key=True)
    user_id = UnicodeAttribute(range_key=True)
    email = UnicodeAttribute()
    role = UnicodeAttribute()
    active = BooleanAttribute(default=True)
    password_hash = UnicodeAttribute()
    token_hash = UnicodeAttribute()
    pending_webhook_url = UnicodeAttribute(null=True)
    created_at = UnicodeAttribute()
    updated_at = UnicodeAttribute()


class TokenModel(GatewayModel):
    """The authentication record: one consistent read resolves a token to tenant, user and role.

    ``role`` and ``active`` repeat the user's, written in the same transaction as the user,
    so a deactivation is seen by the very next request.
    """

    Meta = table_meta("tokens_table")

    token_hash = UnicodeAttribute(hash_key=True)
    tenant_id = UnicodeAttribute()
    user_id = UnicodeAttribute()
    role = UnicodeAttribute()
    active = BooleanAttribute(default=True)


class UniqueKeyModel(GatewayModel):
    """Claims a unique value (a tenant name, an email within a tenant) with a conditional put."""

    Meta = table_meta("unique_keys_table")

    unique_key = UnicodeAttribute(hash_key=True)
    owner_id = UnicodeAttribute()

    @staticmethod
    def tenant_name(name: str) -> str:
        return f"tenant-name#{name.strip().casefold()}"

    @staticmethod
    def user_email(tenant_id: str, email: str) -> str:
        return f"user-email#{tenant_id}#{email.strip().casefold()}"
