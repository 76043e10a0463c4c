"""vCards of shared contacts: written for sends, read back from received contact messages.

The network carries a contact as a vCard; the port speaks :class:`.media_types.ContactCard`.
The ``waid`` parameter is how the phones link a vCard's number to an account.

A received vCard is outside input (any sender can share any contact), so it is read in one
pass over its lines with string methods, and only up to :data:`MAX_VCARD_BYTES`: a card over
it is not read at all (the message still arrives, its ``contact`` says ``too_large``). The
regular expressions read it with before were quadratic on a card of lines without a colon;
``vobject`` was considered and left: its content-line expression backtracks exponentially on
a parameter list without a colon (``TEL;a,,,,…``), and it refuses the non-standard cards
phones write.
"""

from __future__ import annotations

from collections.abc import Iterator

from .media_types import ContactCard

MAX_VCARD_BYTES = 64 * 1024
"""The largest received vCard that is read (UTF-8 bytes); a phone's card is a few hundred."""


def to_vcard(card: ContactCard) -> str:
    return (
        f"BEGIN:VCARD\nVERSION:3.0\nFN:{card.name}\nTEL;type=CELL;waid={card.phone}:+{card.phone}\nEND:VCARD"
    )


def from_vcard(vcard: str, display_name: str = "") -> ContactCard | None:
    """The card a vCard describes (the first ``waid`` of its ``TEL`` lines, else the digits of
    its first ``TEL``; the name given, else its ``FN``); None when the vCard is over
    :data:`MAX_VCARD_BYTES`."""
    if len(vcard) > MAX_VCARD_BYTES or len(vcard.encode()) > MAX_VCARD_BYTES:
        return None
    name: str | None = None
    phone: str | None = None
    waid: str | None = None
    for prop, params, value in _properties(vcard):
        if prop == "FN" and name is None:
            name = value.strip()
        elif prop == "TEL":
            phone = _digits(value) if phone is None else phone
            waid = waid or next((_digits(v) for k, v in params if k == "WAID" and _digits(v)), None)
        if name is not None and waid is not None:
            break
    return ContactCard(name=display_name or name or "", phone=waid or phone or "")


def _properties(vcard: str) -> Iterator[tuple[str, list[tuple[str, str]], str]]:
    """Each content line as (upper-case name without its group, its ``KEY=value`` parameters,
    its value); lines without a colon are skipped. Linear in the card's length."""
    for line in _unfolded(vcard):
        colon = _value_colon(line)
        if colon < 0:
            continue
        head, value = line[:colon], line[colon + 1 :]
        name, *params = head.split(";")
        pairs = [(k.strip().upper(), v) for k, _, v in (p.partition("=") for p in params)]
        yield name.rpartition(".")[2].strip().upper(), pairs, value


def _unfolded(vcard: str) -> Iterator[str]:
    """Logical lines: a physical line starting with a space or tab continues the one before
    (RFC 6350 folding); pieces are joined once, never appended to a growing string."""
    pieces: list[str] = []
    for physical in vcard.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if physical[:1] in (" ", "\t") and pieces:
            pieces.append(physical[1:])
            continue
        if pieces:
            yield "".join(pieces)
        pieces = [physical]
    if pieces:
        yield "".join(pieces)


def _value_colon(line: str) -> int:
    """The index of the colon that starts the value: the first one outside a quoted parameter
    value (``TEL;X="a:b":+1``); -1 when there is none."""
    colon = line.find(":")
    quote = line.find('"')
    while 0 <= quote < colon:
        closing = line.find('"', quote + 1)
        if closing < 0:
            return -1
        if closing > colon:
            colon = line.find(":", closing + 1)
        quote = line.find('"', closing + 1)
    return colon


def _digits(value: str) -> str:
    return "".join(c for c in value if c.isascii() and c.isdigit())
