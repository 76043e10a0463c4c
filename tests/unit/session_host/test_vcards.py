"""Received vCards are outside input: read in time linear in their length, and only up to a cap.

Linearity is asserted on how the time grows when the input grows eightfold (about 8 for a
linear reader, about 64 for a quadratic one), never on a wall-clock bound CI noise could break;
the same measurement of the regular expression the reader replaced shows it can tell the two
apart.
"""

from __future__ import annotations

import re
import timeit
from collections.abc import Callable

import pytest
from fakes_neonize import CTX, PEER_PHONE, message_event, source
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ContactMessage, Message

from session_host.network.media_types import ContactCard
from session_host.network.neonize import events
from session_host.network.vcards import MAX_VCARD_BYTES, from_vcard, to_vcard

GROWTH = 8
LINEAR_AT_MOST = 24  # between 8 (linear) and 64 (quadratic)

# Cards built to make a backtracking or rescanning reader work hardest: lines that never reach
# a colon, a parameter list without one, a quote that never closes, one line folded many times.
ATTACKS: dict[str, Callable[[int], str]] = {
    "TEL lines without a colon": lambda n: "BEGIN:VCARD\n" + "TEL\n" * n,
    "FN lines without a colon": lambda n: "BEGIN:VCARD\n" + "FN;x\n" * n,
    "a parameter list without a colon": lambda n: "BEGIN:VCARD\nTEL;a" + "," * (4 * n),
    "an unclosed quote": lambda n: 'BEGIN:VCARD\nTEL;X="' + ";waid=1" * n,
    "a line folded many times": lambda n: "BEGIN:VCARD\nFN:" + "\n x" * n + "\nEND:VCARD",
    "waid= without digits": lambda n: "TEL;" + "waid=;" * n + ":1",
}


def growth_ratio(read: Callable[[str], object], card: Callable[[int], str], n: int = 1_000) -> float:
    """How much longer ``read`` takes on a card ``GROWTH`` times larger (best of several runs)."""

    def best(text: str) -> float:
        return min(timeit.repeat(lambda: read(text), number=3, repeat=7))

    small, large = card(n), card(n * GROWTH)
    assert len(large.encode()) <= MAX_VCARD_BYTES  # read, not cut off by the cap
    return best(large) / best(small)


def test_a_whatsapp_card_gives_its_waid_and_name() -> None:
    # Given a card as phones write it: grouped properties, a folded name, a formatted number
    vcard = (
        "BEGIN:VCARD\r\nVERSION:3.0\r\nN:;Ana;;;\r\nFN:Ana\r\n  Maria\r\n"
        'item1.TEL;type=CELL;X-LABEL="home: main";waid=5511988887777:+55 11 98888-7777\r\n'
        "item1.X-ABLabel:Mobile\r\nEND:VCARD"
    )
    # When it is read without a display name
    # Then the number is the waid and the name the unfolded FN
    assert from_vcard(vcard) == ContactCard(name="Ana Maria", phone="5511988887777")
    # And a display name given with the message wins over FN
    assert from_vcard(vcard, "Aninha") == ContactCard(name="Aninha", phone="5511988887777")


def test_without_a_waid_the_first_tel_gives_the_digits() -> None:
    vcard = "BEGIN:VCARD\nFN:Bob\nTEL;TYPE=work:+1 (555) 765-4321\nTEL:+44 20 7946 0000\nEND:VCARD"
    assert from_vcard(vcard) == ContactCard(name="Bob", phone="15557654321")


def test_a_later_tels_waid_wins_over_the_first_tels_digits() -> None:
    vcard = "BEGIN:VCARD\nTEL:+1 555 0000\ntel;WAID=5511988887777:+55 11 98888-7777\nEND:VCARD"
    assert from_vcard(vcard) == ContactCard(name="", phone="5511988887777")


def test_what_the_gateway_writes_it_reads_back() -> None:
    card = ContactCard(name="Carol", phone="15551234567")
    assert from_vcard(to_vcard(card)) == card


@pytest.mark.parametrize("garbage", ["", "no colon at all", "\n\n\n", ':\n;:\n"', 'TEL;X="a:b\n'])
def test_garbage_gives_an_empty_card_not_an_error(garbage: str) -> None:
    assert from_vcard(garbage) == ContactCard(name="", phone="")


@pytest.mark.parametrize("attack", ATTACKS.values(), ids=ATTACKS.keys())
def test_crafted_cards_take_time_linear_in_their_size(attack: Callable[[int], str]) -> None:
    # Given a card crafted against the reader, at one size and at eight times that size
    # When both are read
    # Then the larger takes about eight times as long, not the sixty-four of a quadratic reader
    ratio = growth_ratio(from_vcard, attack)
    assert ratio < LINEAR_AT_MOST, f"reading time grew {ratio:.1f}x for {GROWTH}x the input"


def test_the_measurement_catches_the_quadratic_expression_it_replaced() -> None:
    # Given the expression vCards were read with before (`[^:]*` crosses lines)
    before = re.compile(r"^TEL[^:]*:(.*)$", re.IGNORECASE | re.MULTILINE)
    # When the same measurement is made on it with the same attack
    ratio = growth_ratio(before.search, ATTACKS["TEL lines without a colon"])
    # Then it is seen to be quadratic: the linearity assertion above can fail
    assert ratio > LINEAR_AT_MOST, ratio


def test_a_card_over_the_cap_is_not_read() -> None:
    # Given a card just at the cap and cards over it (in characters, or in UTF-8 bytes only)
    at_cap = "FN:Ana\nTEL;waid=5511988887777:+55\n"
    at_cap += "X:" + "a" * (MAX_VCARD_BYTES - len(at_cap) - 3) + "\n"
    over = "BEGIN:VCARD\n" + "TEL\n" * (4 * MAX_VCARD_BYTES)
    over_in_bytes = at_cap[:-2] + "é\n"  # as many characters as at_cap, one byte more
    assert len(at_cap.encode()) == MAX_VCARD_BYTES
    # When they are read
    # Then the card at the cap is, and the others give nothing to read
    assert from_vcard(at_cap) == ContactCard(name="Ana", phone="5511988887777")
    assert from_vcard(over) is None
    assert from_vcard(over_in_bytes, "Ana") is None


def test_a_contact_over_the_cap_still_arrives_without_its_card() -> None:
    # Given a contact message whose vCard is over the cap
    huge = "BEGIN:VCARD\nFN:Ana\n" + "TEL\n" * MAX_VCARD_BYTES
    ev = message_event(
        source(PEER_PHONE, PEER_PHONE), Message(contactMessage=ContactMessage(displayName="Ana", vcard=huge))
    )
    # When it is mapped to an event
    event = events.message_received(CTX, ev)
    # Then the message is reported, its contact saying why the card was not read or passed on
    assert event is not None
    assert (event.data["message_type"], event.data["content"]) == ("contact", "Ana")
    assert event.data["contact"] == {
        "name": "Ana",
        "phone": None,
        "display_name": "Ana",
        "vcard": None,
        "error": "too_large",
    }
