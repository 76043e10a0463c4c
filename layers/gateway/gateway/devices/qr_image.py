"""The pairing QR code as an image, so a client can show it without a QR library of its own."""

from __future__ import annotations

import base64
import io

_SCALE = 8  # pixels per module: a ~60-module pairing code becomes a ~550 px image, easy to scan
_BORDER = 4  # the quiet zone the QR standard asks for


def qr_png_base64(text: str) -> str:
    """Base64 of a PNG showing ``text`` as a QR code (never a Micro QR: phones cannot scan those)."""
    import segno  # here, not at import: only the QR route draws, the rest of a cold start need not load it

    buffer = io.BytesIO()
    segno.make_qr(text, error="m").save(buffer, kind="png", scale=_SCALE, border=_BORDER)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
