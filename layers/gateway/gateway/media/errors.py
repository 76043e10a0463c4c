"""Why media were refused. Each message is safe to show and says what the caller can do;
the routes map every class to 400 (``MediaNotFound`` to 404 ``MEDIA_NOT_FOUND``)."""

from __future__ import annotations


class MediaError(ValueError):
    """Base of the media errors: the message is meant for the API caller."""


class MediaUrlRefused(MediaError):
    """The ``url`` may not be fetched (scheme, credentials, or a non-public address)."""


class MediaTooLarge(MediaError):
    """The media exceed the limit of how they were given."""


class MediaNotFetched(MediaError):
    """The ``url`` could not be fetched (unreachable, HTTP error, timeout)."""


class MediaKindMismatch(MediaError):
    """The bytes are not what the send says they are (an ``image`` that is a PDF...)."""


class MediaNotFound(MediaError):
    """No such media for this tenant and device, or it has expired."""
