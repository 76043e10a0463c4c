"""The neonize adapter's contact operations on the real neonize 0.5.2, offline.

On a client that is not connected, whatsmeow's store lookups (``get_lid_from_pn``,
``get_pn_from_lid``) and the contact store abort the whole process instead of raising: a
device that is dialing must answer every contact operation ``NOT_CONNECTED`` at once, the
library untouched. And the texts the adapter reads from the library's errors are the bundled
whatsmeow's own.
"""

from __future__ import annotations

from pathlib import Path

import neonize
from neonize.utils.enum import BlocklistAction
from session_support import SessionFactory, run, timed
from waiting import PROMPTLY

from gateway.failures.kinds import ErrorKind
from local_stack.played_network import PlayedNetwork
from session_host.network.neonize.contact_ops import NO_PICTURE_ERRORS
from session_host.network.port import NetworkError

PERSON = "15550000002@s.whatsapp.net"
LID = "207180606656001@lid"


def test_a_dialing_device_answers_every_contact_operation_not_connected_at_once(
    neonize_sessions: SessionFactory, network: PlayedNetwork
) -> None:
    # Given a device whose real client dials a network that never answers
    network.play("silent")
    session, _ = neonize_sessions.open()
    dials = network.dials

    async def scenario() -> None:
        await session.connect()
        network.wait_dials(dials + 1)
        # When each contact operation is asked of it
        for call in (
            session.contacts.check_numbers(["15550000002"]),
            session.contacts.get_contact(PERSON),
            session.contacts.get_contact(LID),
            session.contacts.block(LID),
            session.contacts.unblock(PERSON),
            session.contacts.get_blocklist(),
        ):
            took, refused = await timed(call)
            # Then NOT_CONNECTED at once, and the process is still here to tell
            assert isinstance(refused, NetworkError), refused
            assert (refused.kind, took < PROMPTLY) == (ErrorKind.NOT_CONNECTED, True)

    run(scenario())


def test_the_library_error_texts_the_adapter_reads_are_the_bundled_whatsmeows() -> None:
    # Given the Go library neonize bundles
    library = (Path(neonize.__file__).parent / "neonize-linux-amd64.so").read_bytes()
    # Then whatsmeow's "no picture" and "picture hidden" errors say what the adapter looks for
    for marker in NO_PICTURE_ERRORS:
        assert marker.encode() in library, marker
    # And the blocklist actions the adapter passes are the words whatsmeow's IQ uses
    assert (BlocklistAction.BLOCK.value, BlocklistAction.UNBLOCK.value) == ("block", "unblock")
