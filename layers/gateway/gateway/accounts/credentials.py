"""Tokens and passwords: how they are made, stored and checked.

Tokens are UUID v4 strings; only their SHA-256 digest is stored. A fast digest is right for
tokens (122 random bits cannot be guessed), while passwords, which people choose, get a
slow salted hash (scrypt).
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import uuid

_UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", re.IGNORECASE)

# scrypt cost: 2**14 iterations, 8 MiB of memory, ~40 ms per hash on one core.
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


def new_token() -> str:
    return str(uuid.uuid4())


def is_uuid4(value: str) -> bool:
    return bool(_UUID4.match(value))


def token_digest(token: str) -> str:
    """The stored form of a token: lowercase hex SHA-256 of its lowercase text."""
    return hashlib.sha256(token.lower().encode()).hexdigest()


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P)
    encoded = [base64.b64encode(part).decode() for part in (salt, digest)]
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${encoded[0]}${encoded[1]}"
