"""Every media limit, in one place (decisions, "Sending and status"; docs/media.md).

The routes, the fetcher and the kind checks all read these; none keeps a copy.
"""

from __future__ import annotations

MB = 1024 * 1024

# Bytes given inline (``data_base64``, once decoded): an API Gateway request is at most
# 10 MB, and base64 grows the bytes by a third, so inline media stay small.
INLINE_MAX_BYTES = 4 * MB
# Bytes fetched from a ``url``: media of any kind, and documents.
URL_MAX_BYTES = 16 * MB
URL_DOCUMENT_MAX_BYTES = 64 * MB
# A video posted as a status.
STATUS_VIDEO_MAX_BYTES = 16 * MB

# A received media's download from the network (the session host), from the request to the
# last byte; past it the message is reported with ``media.error: timeout``. Received media
# are held to the send limits above (network/media_types.MEDIA_RULES).
RECEIVED_MEDIA_TIMEOUT_SECONDS = 60.0

# A ``url`` fetch, from the first connection to the last byte (redirects included).
FETCH_TIMEOUT_SECONDS = 30.0
# Redirects followed by a fetch; every hop is checked like the first URL.
FETCH_MAX_REDIRECTS = 3

# Stickers are sent as 512 x 512 WebP images; a PNG or JPEG is converted.
STICKER_SIDE_PIXELS = 512
# A larger source image is refused before it is decoded (a small file can hold a huge image).
STICKER_SOURCE_MAX_PIXELS = 16_000_000

# How long media are kept (the bucket's lifecycle rule in template.yaml expires them).
MEDIA_RETENTION_DAYS = 30
# GET /media/{media_id} answers with a pre-signed URL valid this long.
PRESIGNED_URL_SECONDS = 300
