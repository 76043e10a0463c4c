"""Simulated sessions: logging out, online and offline, and the phone unlinking the device."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes_simulated import CONTACT, JID, fast_network, network_timers_passed, open_session, paired

from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError, SessionState


def test_logout_deletes_credentials_and_a_stale_copy_resumes_logged_out(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device whose credentials someone copied
        network = fast_network()
        session, recorder = await paired(network, tmp_path)
        copy = (tmp_path / "dev-1.json").read_text()

        # When it logs out
        await session.logout()

        # Then its credentials are gone, it is logged out and the network forgot the key
        event = await recorder.wait_for("device.logged_out")
        assert event.data == {
            "device_id": "dev-1",
            "status": "logged_out",
            "is_connected": False,
            "is_logged_in": False,
            "reason": "logout",
        }
        assert session.state is SessionState.LOGGED_OUT
        assert session.jid is None
        assert not (tmp_path / "dev-1.json").exists()
        assert network.linked_jid("dev-1") is None

        # And a session resuming from the stale copy is logged out (and drops the copy)
        (tmp_path / "dev-1.json").write_text(copy)
        stale, stale_events = open_session(network, tmp_path)
        await stale.connect()
        await stale_events.wait_for("device.logged_out")
        assert stale.state is SessionState.LOGGED_OUT
        assert not (tmp_path / "dev-1.json").exists()

        # And connecting again starts a new pairing
        await stale.connect()
        await stale_events.wait_for("qr.generated")
        await stale.close()
        await session.close()

    asyncio.run(scenario())


def test_phone_unlinking_the_device_logs_the_session_out(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device
        network = fast_network()
        session, recorder = await paired(network, tmp_path)

        # When the phone removes it from its linked devices
        assert network.unlink("dev-1")

        # Then the session is logged out and its credentials deleted
        event = await recorder.wait_for("device.logged_out")
        assert event.data["reason"] == "logged_out"
        assert session.state is SessionState.LOGGED_OUT
        assert not (tmp_path / "dev-1.json").exists()
        await session.close()

    asyncio.run(scenario())


def test_logout_of_a_closed_session_forgets_it_here_while_the_phone_still_lists_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a paired device whose session the host closed, and a fault waiting on logout
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path)
        await session.close()
        network.inject_fault("logout", "network")

        # When it logs out
        await session.logout()

        # Then the credentials are deleted locally and the logout is reported (no network call to fail)
        event = await recorder.wait_for("device.logged_out")
        assert event.data["reason"] == "logout"
        assert session.state is SessionState.LOGGED_OUT
        assert session.jid is None
        assert not (tmp_path / "dev-1.json").exists()
        assert network.pending_faults()[0]["operation"] == "logout"

        # And the network was not told: the phone lists the device and keeps its traffic
        assert network.linked_jid("dev-1") == JID
        network.send_from_account(CONTACT, JID, "hello?")
        assert network.queued_count("dev-1") == 1

        # And once the phone removes it, the link and its traffic are gone
        assert network.unlink("dev-1")
        assert network.linked_jid("dev-1") is None
        assert network.queued_count("dev-1") == 0

    asyncio.run(scenario())


def test_logout_while_reconnecting_stops_the_reconnect(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device the network dropped, waiting to reconnect
        network = fast_network(reconnect_delay=0.1)
        session, recorder = await paired(network, tmp_path)
        network.drop("dev-1")
        await recorder.wait_for("device.disconnected")

        # When it logs out before the reconnect
        await session.logout()
        # (a twin dropped after it, on the same network, reconnects by itself: the reconnect's
        # time is past)
        await network_timers_passed(network, tmp_path)

        # Then it stays logged out, with no connection
        assert recorder.names()[-2:] == ["device.disconnected", "device.logged_out"]
        assert session.state is SessionState.LOGGED_OUT
        assert network.connection_count("dev-1") == 0
        await session.close()

    asyncio.run(scenario())


def test_logout_of_a_device_that_never_paired_is_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given an unpaired session, not started, then showing QR codes
        network = fast_network(qr_lifetimes=(5.0,))
        session, recorder = open_session(network, tmp_path)
        for start in (False, True):
            if start:
                await session.connect()

            # When it logs out
            with pytest.raises(NetworkError) as refused:
                await session.logout()

            # Then it is not logged in, and nothing changed
            assert refused.value.kind is ErrorKind.NOT_CONNECTED
            assert str(refused.value) == "the device is not logged in"
            assert session.state is (SessionState.PAIRING if start else SessionState.NOT_READY)
        await recorder.wait_for("qr.generated")
        assert recorder.names() == ["qr.generated"]
        await session.close()

    asyncio.run(scenario())
