"""The transactions that keep a tenant's counts (moto): a user or device of a tenant deleted
meanwhile is refused as such, and the deletion of a device counts it off exactly once."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from gateway.accounts import store as account_store
from gateway.accounts.records import new_user
from gateway.accounts.roles import Role
from gateway.devices import store as device_store
from gateway.models import DeviceModel, TenantModel, UserModel
from gateway.models.base import TenantGone


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def test_a_user_of_a_deleted_tenant_is_refused_and_nothing_is_written(stack: Any) -> None:
    # Given a tenant id with no tenant record (deleted after its admin's token was read)
    tenant_id = str(uuid.uuid4())
    created = new_user(tenant_id, "late@example.com", "secret123", Role.USER, None, "2026-01-01T00:00:00Z")
    # When the user is created / Then TenantGone, and no user, token or tenant item appears
    with pytest.raises(TenantGone):
        account_store.create_user(created.user, created.token_record)
    assert list(UserModel.query(tenant_id)) == []
    assert account_store.get_token(created.user.token_hash) is None
    assert account_store.get_tenant(tenant_id) is None


def test_a_device_of_a_deleted_tenant_is_refused_and_nothing_is_written(stack: Any) -> None:
    # Given a tenant id with no tenant record
    tenant_id = str(uuid.uuid4())
    device = device_store.new_device(tenant_id, "owner", None, "2026-01-01T00:00:00Z")
    # When the device is created / Then TenantGone, and neither device nor tenant item appears
    with pytest.raises(TenantGone):
        device_store.create_device(device)
    assert list(DeviceModel.query(tenant_id)) == []
    assert account_store.get_tenant(tenant_id) is None


def test_a_device_deleted_again_is_counted_off_once(tenant: Any) -> None:
    # Given a tenant with one device
    device = device_store.new_device(tenant.id, tenant.admin_id, None, "2026-01-01T00:00:00Z")
    device_store.create_device(device)
    assert TenantModel.get(tenant.id).devices_count == 1
    # When its records are deleted twice
    device_store.delete_device_records(device)
    device_store.delete_device_records(device)
    # Then the count went down once
    assert TenantModel.get(tenant.id).devices_count == 0


def test_a_device_whose_tenant_is_gone_is_still_deleted(tenant: Any) -> None:
    # Given a device whose tenant record is already gone (a tenant deletion half done)
    device = device_store.new_device(tenant.id, tenant.admin_id, None, "2026-01-01T00:00:00Z")
    device_store.create_device(device)
    TenantModel(tenant.id).delete()
    # When its records are deleted / Then it is gone, and no tenant item was made up
    device_store.delete_device_records(device)
    assert device_store.get_device(tenant.id, device.device_id) is None
    assert account_store.get_tenant(tenant.id) is None
