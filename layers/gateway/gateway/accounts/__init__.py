"""Tenants, users, roles and credentials: the business rules behind the platform and user routes."""
