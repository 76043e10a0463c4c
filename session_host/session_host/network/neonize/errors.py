"""Library exceptions → :class:`NetworkError`, keeping the library's own message.

neonize raises one exception class per call carrying whatsmeow's error text, so the kind is
read from that text. Group operations read more of it (:func:`group_error`): whatsmeow wraps
the network's answers to group queries in fixed sentences ("that group does not exist", "that
group invite link has been revoked", ...) and otherwise reports the raw answer as ``info query
returned status <code>: <text>`` (401 ``not-authorized``, 403 ``forbidden``, 404
``item-not-found``, 406 ``not-acceptable``, 409 ``conflict``, 410 ``gone``, 429
``rate-overlimit``).

A send refused for rate is a ``RATE_LIMITED`` error naming its limit (:func:`_rate_limit`): the
network's acknowledgement of a message carries an error code, which whatsmeow reports as
``server returned error <code>`` (``ErrServerReturnedError``): 463 is the reachout timelock (no
new chats for a while), 429 the rate overlimit; a 429 can also come from a query whatsmeow
makes on the way (``info query returned status 429: rate-overlimit``, e.g. fetching the
recipient's devices). Neither says until when: whatsmeow reads only the code (``retry_at`` is
None; ``docs/neonize.md``).
"""

from __future__ import annotations

import re

from gateway.failures.kinds import ErrorKind
from gateway.groups.codes import OperationCode

from ..port import NetworkError, RateLimit

_OVERLIMIT = re.compile(r"rate-overlimit|(?:server returned error|returned status) 429\b")
_REACHOUT_TIMELOCK = re.compile(r"(?:server returned error|returned status) 463\b")
_TIMEOUT = ("timed out", "deadline exceeded", "timeout")
_INVALID_PHONE = ("phone number",)

_IQ_STATUS = re.compile(r"returned status (\d{3})\b")
_GROUP_NOT_FOUND = (
    "that group does not exist",  # whatsmeow ErrGroupNotFound (404 on a group query)
    "you're not participating in that group",  # ErrNotInGroup (403 on a group query)
    "that group invite link is not valid",  # ErrInviteLinkInvalid: unknown links are 404s too
    "item-not-found",
)
_INVITE_REVOKED = ("that group invite link has been revoked",)  # ErrInviteLinkRevoked (410)
_NOT_ADMIN = (
    "not-authorized",
    "forbidden",
    "permission to get the group's invite link",  # ErrGroupInviteLinkUnauthorized (401)
)
_INVALID_IMAGE = ("not a valid image",)  # ErrInvalidImageFormat (406 on a picture)


def library_error(operation: str, exc: BaseException, *, phone: bool = False) -> NetworkError:
    """A :class:`NetworkError` for an exception raised by neonize during ``operation``.

    The kind is ``NETWORK`` unless the message says the network throttled the call
    (``RATE_LIMITED``, naming which limit: :func:`_rate_limit`), gave no answer in time
    (``TIMEOUT``) or, for pair codes, refused the phone number (``INVALID``).
    """
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    limit = _rate_limit(lowered)
    if limit is not None:
        return NetworkError.rate_limited(f"{operation} failed: {text}", limit)
    if any(marker in lowered for marker in _TIMEOUT):
        kind = ErrorKind.TIMEOUT
    elif phone and any(marker in lowered for marker in _INVALID_PHONE):
        kind = ErrorKind.INVALID
    else:
        kind = ErrorKind.NETWORK
    return NetworkError(kind, f"{operation} failed: {text}")


def _rate_limit(text: str) -> RateLimit | None:
    """Which rate refusal whatsmeow's error text reports, if any: 463 in a message's
    acknowledgement is the reachout timelock; 429 (an acknowledgement's or a query's,
    ``rate-overlimit``) the overlimit. The codes are read only where whatsmeow writes them, so
    a phone number or an id with those digits is no refusal."""
    if _REACHOUT_TIMELOCK.search(text):
        return RateLimit.REACHOUT_TIMELOCK
    if _OVERLIMIT.search(text):
        return RateLimit.OVERLIMIT
    return None


def group_error(operation: str, exc: BaseException, *, joining: bool = False) -> NetworkError:
    """:func:`library_error`, plus the refusals a group operation can name.

    ``group_not_found``: the group does not exist or the device is not in it (whatsmeow's
    sentences, or a raw 404), and an invite link that is not valid (the decisions answer
    unknown links with 404). ``invite_link_revoked``: the link was reset (410).
    ``invalid_image``: the network refused the picture. ``not_group_admin``: the network
    refused the device (401 ``not-authorized``, 403 ``forbidden``), except while ``joining``,
    where those say nothing about admins and stay ``NETWORK``. While ``joining``, a raw 406
    (invalid code) is ``group_not_found`` and 409 is ``already_member``. Throttling and
    timeouts keep their kinds; anything else is ``NETWORK``.
    """
    error = library_error(operation, exc)
    if error.kind is not ErrorKind.NETWORK:
        return error
    code = _refusal(str(exc).lower(), joining=joining)
    return NetworkError.refused(code, str(error)) if code else error


def _refusal(text: str, *, joining: bool) -> str | None:
    match = _IQ_STATUS.search(text)
    status = int(match.group(1)) if match else None
    if status == 410 or any(marker in text for marker in _INVITE_REVOKED):
        return OperationCode.INVITE_LINK_REVOKED
    if any(marker in text for marker in _INVALID_IMAGE):
        return OperationCode.INVALID_IMAGE
    if status == 404 or any(marker in text for marker in _GROUP_NOT_FOUND):
        return OperationCode.GROUP_NOT_FOUND
    if joining:
        return {406: OperationCode.GROUP_NOT_FOUND, 409: OperationCode.ALREADY_MEMBER}.get(status or 0)
    if status in (401, 403) or any(marker in text for marker in _NOT_ADMIN):
        return OperationCode.NOT_GROUP_ADMIN
    return None
