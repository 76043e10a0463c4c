"""Pages of the list routes: ``limit`` and an opaque ``cursor`` in, ``next`` out.

GET /tenants, /users, /devices and /webhook/deliveries read their lists a page at a time:
one DynamoDB Query (or, for tenants, one Scan) per page, more only where a filter drops
items (a ``user``'s own devices, deliveries of one status). A page asks DynamoDB for one
item more than ``limit``: when it comes, there is a next page and ``next`` is the cursor
of the page's last item; else ``next`` is null, so a walk never ends on an empty page.

A cursor is the key of the last item shown, as url-safe base64 (no padding) of compact
JSON ``{"l": <list>, "k": {<key attribute>: <value>}}``. Clients treat it as opaque. It is
not signed; it is checked: it must decode to a key of the list it is sent to, with exactly
that table's key attributes, in the partition (tenant or device) of the request. So an
edited cursor, or one copied from another tenant's listing, reads nothing the caller could
not list anyway: it is refused with 400 ``VALIDATION_ERROR`` on ``cursor``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from fastapi import Query
from pynamodb.expressions.condition import Condition
from pynamodb.models import Model

from gateway.errors import ApiError, validation_error
from gateway.models.base import key_attributes

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
CURSOR_PATTERN = r"^[A-Za-z0-9_-]+$"
"""Url-safe base64 without padding: the alphabet every cursor is written in."""
MAX_CURSOR_CHARS = 1024  # a key is two strings of at most a few hundred characters

T = TypeVar("T")
U = TypeVar("U")
M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class PageRequest:
    """What the caller asked for: at most ``limit`` items, after ``cursor`` when given."""

    limit: int = DEFAULT_LIMIT
    cursor: str | None = None


def page_request(
    limit: int = Query(
        default=DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description=f"items per page, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})",
    ),
    cursor: str | None = Query(
        default=None,
        min_length=1,
        max_length=MAX_CURSOR_CHARS,
        pattern=CURSOR_PATTERN,
        description="the `next` of the previous page, as given (opaque: only a cursor the gateway "
        "issued for this list is accepted); left out for the first page",
    ),
) -> PageRequest:
    """FastAPI dependency of every list route: the ``limit`` and ``cursor`` query parameters."""
    return PageRequest(limit=limit, cursor=cursor)


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list and the cursor of the next one (None on the last page)."""

    items: list[T]
    next: str | None

    def map(self, view: Callable[[T], U]) -> Page[U]:
        return Page([view(item) for item in self.items], self.next)


@dataclass(frozen=True)
class Listing(Generic[M]):
    """A list as it is stored: its name in cursors, its table, and where it lives.

    ``partition``: the hash key value every item shares (the caller's tenant, the device),
    or None to scan the whole table. ``range_prefix``: the range keys start with it.
    """

    name: str
    model: type[M]
    partition: str | None = None
    range_prefix: str | None = None


def read_page(
    listing: Listing[M],
    request: PageRequest,
    *,
    filter_condition: Condition | None = None,
    newest_first: bool = False,
    consistent_read: bool = False,
    read_size: int | None = None,
) -> Page[M]:
    """The page ``request`` asks for. ``read_size`` is how many items each read evaluates
    (default: ``limit + 1``); larger suits a filter that keeps few items."""
    start = _start_key(listing, request.cursor) if request.cursor is not None else None
    wanted = request.limit + 1
    options: dict[str, Any] = {
        "filter_condition": filter_condition,
        "limit": wanted,
        "page_size": read_size or wanted,
        "last_evaluated_key": start,
        "consistent_read": consistent_read,
    }
    if listing.partition is None:
        results = listing.model.scan(**options)
    else:
        _, range_key = _key_attributes(listing.model)
        condition = None
        if listing.range_prefix is not None and range_key is not None:
            condition = getattr(listing.model, range_key).startswith(listing.range_prefix)
        results = listing.model.query(
            listing.partition, condition, scan_index_forward=not newest_first, **options
        )
    items = list(results)
    if len(items) <= request.limit:
        return Page(items, None)
    items = items[: request.limit]
    return Page(items, _cursor(listing, items[-1]))


def _key_attributes(model: type[Model]) -> tuple[str, str | None]:
    """The names of the model's hash key and range key (None without one)."""
    hash_key, range_key = key_attributes(model)
    return hash_key.attr_name, range_key.attr_name if range_key is not None else None


def _cursor(listing: Listing[Any], item: Model) -> str:
    names = [name for name in _key_attributes(listing.model) if name is not None]
    key = {name: getattr(item, name) for name in names}
    raw = json.dumps({"l": listing.name, "k": key}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _start_key(listing: Listing[Any], cursor: str) -> dict[str, dict[str, str]]:
    """The DynamoDB start key a cursor names, once it is known to belong to ``listing``."""
    try:
        raw = base64.b64decode(cursor + "=" * (-len(cursor) % 4), altchars=b"-_", validate=True)
        data = json.loads(raw)
    except (binascii.Error, ValueError, RecursionError):
        raise _invalid(cursor) from None
    if not isinstance(data, dict) or data.get("l") != listing.name or set(data) != {"l", "k"}:
        raise _invalid(cursor)
    hash_key, range_key = _key_attributes(listing.model)
    names = {hash_key} if range_key is None else {hash_key, range_key}
    key = data["k"]
    if not isinstance(key, dict) or set(key) != names:
        raise _invalid(cursor)
    if not all(isinstance(value, str) and value for value in key.values()):
        raise _invalid(cursor)
    if listing.partition is not None and key[hash_key] != listing.partition:
        raise _invalid(cursor)  # issued for another tenant or device
    prefix = listing.range_prefix
    if prefix is not None and range_key is not None and not key[range_key].startswith(prefix):
        raise _invalid(cursor)  # outside the list's key range: DynamoDB would refuse it
    return {name: {"S": value} for name, value in key.items()}


def _invalid(cursor: str) -> ApiError:
    return validation_error(
        "cursor", "not a cursor of this list: send the `next` of the previous page as given", cursor
    )
