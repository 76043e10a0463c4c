"""vCards of shared contacts: written for sends, read back from received contact messages.

The network carries a contact as a vCard; the port speaks :class:`.media_types.ContactCard`.
The ``waid`` parameter is how the phones link a vCard's number to an account.
"""

from __future__ import annotations

import re

from .media_types import ContactCard

_TEL = re.compile(r"^TEL[^:]*:(.*)$", re.IGNORECASE | re.MULTILINE)
_WAID = re.compile(r"waid=(\d+)", re.IGNORECASE)
_FN = re.compile(r"^FN[^:]*:(.*)$", re.IGNORECASE | re.MULTILINE)


def to_vcard(card: ContactCard) -> str:
    return (
        f"BEGIN:VCARD\nVERSION:3.0\nFN:{card.name}\nTEL;type=CELL;waid={card.phone}:+{card.phone}\nEND:VCARD"
    )


def from_vcard(vcard: str, display_name: str = "") -> ContactCard:
    """The card a vCard describes: its ``waid`` digits, else the digits of its first TEL."""
    waid = _WAID.search(vcard)
    tel = _TEL.search(vcard)
    phone = waid.group(1) if waid else re.sub(r"\D", "", tel.group(1)) if tel else ""
    fn = _FN.search(vcard)
    return ContactCard(name=display_name or (fn.group(1).strip() if fn else ""), phone=phone)
