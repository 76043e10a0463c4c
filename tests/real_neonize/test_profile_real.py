"""Presence and profile on the real neonize 0.5.2, offline.

Several of these library calls abort the whole process on a client that is not connected
(``set_status_message`` among them, ``docs/neonize.md``): a session that is dialing a network
that refuses it must answer every presence and profile operation ``NOT_CONNECTED`` without
reaching the library, and the process must live on. And the library's "no profile picture"
error, raised as neonize raises it (the whole answer protobuf as the exception's argument),
must read as no picture, not as a failure.
"""

from __future__ import annotations

from typing import Any

import pytest
from neonize.exc import GetProfilePictureError
from neonize.proto.Neonize_pb2 import GetProfilePictureReturnFunction
from session_support import SessionFactory, run

from gateway.failures.kinds import ErrorKind
from local_stack.played_network import PlayedNetwork
from session_host.network.neonize.jids import parse_jid
from session_host.network.neonize.profile_ops import picture_url
from session_host.network.port import NetworkError

JPEG = b"\xff\xd8\xff\xe0" + bytes(16)


def test_every_operation_of_a_session_not_connected_is_refused_before_the_library(
    neonize_sessions: SessionFactory, network: PlayedNetwork
) -> None:
    # Given a real session dialing a network that refuses it
    session, _sink = neonize_sessions.open()

    async def scenario() -> list[ErrorKind]:
        await session.connect()
        kinds = []
        for call in (
            session.presence.send_presence(True),
            session.presence.subscribe_presence("15550000002@s.whatsapp.net"),
            session.profile.get_profile(),
            session.profile.set_name("Acme"),
            session.profile.set_about("Here"),
            session.profile.set_picture(JPEG),
        ):
            with pytest.raises(NetworkError) as refused:
                await call
            kinds.append(refused.value.kind)
        return kinds

    # When each presence and profile operation is asked of it
    # Then each is NOT_CONNECTED (and this process is still here to say so)
    assert run(scenario()) == [ErrorKind.NOT_CONNECTED] * 6


class _NoPicture:
    """A client answering the picture query as whatsmeow does for an account without one."""

    def get_profile_picture(self, jid: Any, params: Any) -> Any:
        answer = GetProfilePictureReturnFunction(Error="that user or group does not have a profile picture")
        raise GetProfilePictureError(answer)


def test_the_librarys_no_picture_error_reads_as_no_picture() -> None:
    assert picture_url(_NoPicture(), parse_jid("15550000002@s.whatsapp.net")) is None
