"""Field types shared by request and response models, each saying in the OpenAPI document what
the server does with it.

Whitespace means the Unicode ``White_Space`` characters: the ones Pydantic's
``strip_whitespace`` removes. The pattern lists them explicitly because JSON Schema's ``\\s``
(ECMA-262) and Python's ``\\s`` each differ from that set, and from each other.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from email_validator import SPECIAL_USE_DOMAIN_NAMES
from pydantic import BeforeValidator, EmailStr, Field, StrictInt, StringConstraints, WithJsonSchema

WHITESPACE = "\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
NOT_BLANK = f"[^{WHITESPACE}]"
"""A pattern (unanchored, as JSON Schema applies it) of text with a non-whitespace character."""
_NOT_BLANK = re.compile(NOT_BLANK)


def is_blank(text: str) -> bool:
    """Whether ``text`` has only whitespace (or nothing), by the rule of ``NOT_BLANK``: Python's
    ``str.strip`` also removes the separators U+001C to U+001F, which are not whitespace here."""
    return _NOT_BLANK.search(text) is None


Timestamp = Annotated[
    str, Field(json_schema_extra={"format": "date-time"}, examples=["2026-11-22T10:00:00.000Z"])
]
"""RFC 3339 UTC with milliseconds and ``Z``, as ``gateway.timestamps.iso_utc`` writes it."""

Uuid = Annotated[str, Field(json_schema_extra={"format": "uuid"})]
"""An id the gateway generated: a lowercase UUID string."""


def _integral_float_as_int(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


JsonInteger = Annotated[StrictInt, BeforeValidator(_integral_float_as_int)]
"""An integer as JSON Schema counts them: ``26`` or ``26.0``, never ``true`` nor ``"26"``."""


NonBlank = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1),
    Field(json_schema_extra={"pattern": NOT_BLANK}),
]
"""A text field stripped of surrounding whitespace, then at least 1 character; a field adds its
own bound, ``Annotated[NonBlank, StringConstraints(max_length=100)]`` (a type, so a type checker
reads it as ``str``).

The schema says so with ``NOT_BLANK``; its ``maxLength`` applies to the text as sent, which
is never shorter than the stripped text the server measures, so the schema is the stricter.
"""


def omittable(schema: dict[str, Any] | None = None, **field: Any) -> Any:
    """A field of type ``X | None`` whose null means left out: the schema shows ``X`` alone,
    without null or a default, plus ``schema``'s keywords (what the route checks itself)."""

    def shape(field_schema: dict[str, Any]) -> None:
        field_schema.pop("default", None)
        alternatives = [item for item in field_schema.pop("anyOf", []) if item != {"type": "null"}]
        if len(alternatives) == 1:
            field_schema.update(alternatives[0])
        elif alternatives:
            field_schema["anyOf"] = alternatives
        field_schema.update(schema or {})

    return Field(default=None, json_schema_extra=shape, **field)


def some_property(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of a partial update: at least one of its properties is required
    (the route refuses an empty body, and the document says so)."""
    schema["anyOf"] = [{"required": [name]} for name in schema.get("properties", {})]


def any_case(word: str) -> str:
    """A pattern matching ``word`` in any case: JSON Schema patterns have no ``(?i)``."""
    return "".join(f"[{char.upper()}{char.lower()}]" if char.isalpha() else _literal(char) for char in word)


def _literal(char: str) -> str:
    """``char`` as a pattern, escaped only where it is special, so ECMA-262 reads it too."""
    return f"\\{char}" if char in r".^$*+?()[]{}|\/" else char


DOMAIN_LABEL = r"(?![Xx][Nn]--)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
"""A host name label: letters, digits, inner hyphens, at most 63; no ``xn--`` (punycode that
does not decode is refused, and the pattern cannot tell)."""
TOP_LABEL = r"(?![Xx][Nn]--)[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
"""The last label starts with a letter: an all-numeric one makes the host an IPv4 address."""

_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_SPECIAL_USE = "|".join(any_case(name) for name in sorted(SPECIAL_USE_DOMAIN_NAMES))
EMAIL_SCHEMA = {
    "type": "string",
    "format": "email",
    "maxLength": 254,
    "pattern": rf"^{_ATOM}(?:\.{_ATOM})*@(?:{DOMAIN_LABEL}\.)+(?!(?:{_SPECIAL_USE})$){TOP_LABEL}$",
    "not": {"pattern": "^[^@]{65,}@"},
}
"""What email-validator (Pydantic's ``EmailStr``) accepts, of ASCII addresses: a dot-atom local
part of at most 64 characters, a domain of at least two labels whose last is not a special-use
name (``test``, ``invalid``, ``localhost``...), at most 254 characters in all."""

Email = Annotated[
    EmailStr,
    WithJsonSchema(
        {
            **EMAIL_SCHEMA,
            "description": "An address at a domain that can receive mail (special-use names such as "
            "`.test` or `.localhost` are refused); stored lowercased",
        }
    ),
]
