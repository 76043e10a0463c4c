"""Pure rules of credentials, roles and validation-error translation."""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid

import pytest

from gateway.accounts.credentials import hash_password, is_uuid4, token_digest
from gateway.accounts.roles import Principal, Role, check_user_update
from gateway.errors import ApiError, ShortBodyError
from gateway.web.validation import standard_validation_error

ADMIN = Principal("t", "admin-id", Role.ADMIN)
MANAGER = Principal("t", "manager-id", Role.MANAGER)
USER = Principal("t", "user-id", Role.USER)


def verify_password(password: str, stored: str) -> bool:
    """What a login would check: ``stored`` is scrypt of ``password`` with its own salt and costs."""
    _, n, r, p, salt, digest = stored.split("$")
    candidate = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p))
    return hmac.compare_digest(candidate, base64.b64decode(digest))


def test_password_hash_is_salted_and_verifies() -> None:
    # Given the same password hashed twice
    first, second = hash_password("secret123"), hash_password("secret123")

    # Then the stored forms differ (salt), are scrypt, and verify only the right password
    assert first != second
    assert first.startswith("scrypt$")
    assert verify_password("secret123", first)
    assert not verify_password("secret124", first)


def test_token_digest_is_sha256_hex_and_case_insensitive() -> None:
    token = str(uuid.uuid4())
    assert len(token_digest(token)) == 64
    assert token_digest(token) == token_digest(token.upper())
    assert token not in token_digest(token)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("6f1c2b9e-0d7a-4c55-9a61-2f0e8b7c6d5a", True),
        ("6F1C2B9E-0D7A-4C55-9A61-2F0E8B7C6D5A", True),
        ("5174c5f0-e6b8-11f1-bb3f-02fc00000001", False),  # a uuid1
        ("not-a-token", False),
        ("", False),
        ("6f1c2b9e-0d7a-4c55-9a61-2f0e8b7c6d5ax", False),
    ],
)
def test_only_uuid4_tokens_are_candidates(value: str, expected: bool) -> None:
    assert is_uuid4(value) is expected


@pytest.mark.parametrize(
    ("caller", "target_id", "target_role", "active", "role", "outcome"),
    [
        (ADMIN, "x", Role.ADMIN, False, None, None),
        (ADMIN, "x", Role.USER, None, Role.ADMIN, None),
        (ADMIN, "admin-id", Role.ADMIN, False, None, 409),
        (ADMIN, "admin-id", Role.ADMIN, None, Role.MANAGER, 409),
        (ADMIN, "admin-id", Role.ADMIN, True, Role.ADMIN, None),
        (MANAGER, "x", Role.USER, False, None, None),
        (MANAGER, "x", Role.MANAGER, None, Role.USER, None),
        (MANAGER, "x", Role.USER, None, Role.MANAGER, None),
        (MANAGER, "x", Role.ADMIN, False, None, 403),
        (MANAGER, "x", Role.USER, None, Role.ADMIN, 403),
        (USER, "user-id", Role.USER, False, None, 403),
    ],
)
def test_user_update_rules(
    caller: Principal,
    target_id: str,
    target_role: Role,
    active: bool | None,
    role: Role | None,
    outcome: int | None,
) -> None:
    if outcome is None:
        check_user_update(caller, target_id, target_role, active, role)
        return
    with pytest.raises((ApiError, ShortBodyError)) as raised:
        check_user_update(caller, target_id, target_role, active, role)
    assert raised.value.status == outcome


def test_validation_errors_name_fields_and_never_echo_secrets() -> None:
    # Given pydantic errors for a password and an email
    errors = [
        {"type": "string_too_short", "loc": ("body", "password"), "msg": "too short", "input": "abc"},
        {"type": "value_error", "loc": ("body", "email"), "msg": "bad email", "input": "x"},
    ]

    # When translated
    body = standard_validation_error(errors).body()

    # Then each field is listed, the password's value is withheld
    assert body["error_code"] == "VALIDATION_ERROR"
    assert body["validation"] == [
        {"field": "password", "message": "too short", "value": None},
        {"field": "email", "message": "bad email", "value": "x"},
    ]


def test_malformed_and_misshapen_bodies_have_their_own_codes() -> None:
    assert standard_validation_error([{"type": "json_invalid", "loc": ("body", 1)}]).code == "INVALID_JSON"
    assert standard_validation_error([{"type": "missing", "loc": ("body",)}]).code == "INVALID_JSON"
    shape = [{"type": "model_attributes_type", "loc": ("body",), "input": []}]
    assert standard_validation_error(shape).code == "INVALID_REQUEST_FORMAT"
