"""Library exceptions → :class:`NetworkError`, keeping the library's own message."""

from __future__ import annotations

from ..port import NetworkError, NetworkErrorKind

_RATE_LIMITED = ("rate-overlimit", "429")
_TIMEOUT = ("timed out", "deadline exceeded", "timeout")
_INVALID_PHONE = ("phone number",)


def library_error(operation: str, exc: BaseException, *, phone: bool = False) -> NetworkError:
    """A :class:`NetworkError` for an exception raised by neonize during ``operation``.

    The kind is ``NETWORK`` unless the message says the network throttled the call
    (``RATE_LIMITED``), gave no answer in time (``TIMEOUT``) or, for pair codes, refused the
    phone number (``INVALID``).
    """
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    if any(marker in lowered for marker in _RATE_LIMITED):
        kind = NetworkErrorKind.RATE_LIMITED
    elif any(marker in lowered for marker in _TIMEOUT):
        kind = NetworkErrorKind.TIMEOUT
    elif phone and any(marker in lowered for marker in _INVALID_PHONE):
        kind = NetworkErrorKind.INVALID
    else:
        kind = NetworkErrorKind.NETWORK
    return NetworkError(kind, f"{operation} failed: {text}")
