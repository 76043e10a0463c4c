"""Simulated sessions: pairing by QR code or pair code, the QR window, resuming."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from fakes_simulated import JID, PHONE, fast_network, open_session, paired

from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError, SessionState


def test_pairing_by_scan_stores_credentials_and_connects(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given an unpaired session that started and shows a QR code
        network = fast_network()
        session, recorder = open_session(network, tmp_path)
        assert session.state is SessionState.NOT_READY
        await session.connect()
        assert session.state is SessionState.PAIRING
        assert session.current_qr is not None  # shown before connect() returns
        qr = await recorder.wait_for("qr.generated")
        assert session.current_qr[0] == qr.data["qr_code"]
        assert session.current_qr[1] > time.time()
        assert qr.data["device_id"] == "dev-1"
        assert qr.data["expires_at"].endswith("Z")

        # When a phone scans it
        jid = network.scan("dev-1", PHONE)

        # Then the device pairs as that account, stores its credentials and is connected
        connected = await recorder.wait_for("device.connected")
        assert jid == JID
        assert recorder.names() == ["qr.generated", "pair.success", "device.connected"]
        assert recorder.named("pair.success")[0].data == {
            "device_id": "dev-1",
            "messaging_jid": JID,
            "platform": "simulated",
            "business_name": "",
        }
        assert connected.data == {
            "device_id": "dev-1",
            "status": "connected",
            "messaging_jid": JID,
            "is_connected": True,
            "is_logged_in": True,
        }
        assert session.state is SessionState.CONNECTED
        assert session.jid == JID
        assert session.current_qr is None
        stored = json.loads((tmp_path / "dev-1.json").read_text())
        assert stored["jid"] == JID
        assert stored["device_key"]
        await session.close()

    asyncio.run(scenario())


def test_pairing_by_pair_code(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a pairing session that asked for a pair code for a phone
        network = fast_network()
        session, recorder = open_session(network, tmp_path)
        await session.connect()
        code = await session.pair_phone(PHONE)
        assert len(code) == 9
        assert code[4] == "-"

        # When that phone enters the code
        jid = network.enter_pair_code(PHONE, code.lower().replace("-", ""))

        # Then the device pairs and connects
        await recorder.wait_for("device.connected")
        assert jid == JID
        assert session.state is SessionState.CONNECTED
        assert (tmp_path / "dev-1.json").exists()

        # And asking for another code now is refused
        with pytest.raises(NetworkError) as refused:
            await session.pair_phone(PHONE)
        assert refused.value.kind is ErrorKind.ALREADY_LOGGED_IN
        await session.close()

    asyncio.run(scenario())


def test_pair_phone_needs_a_pairing_session_and_a_phone(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a session that did not start
        session, _ = open_session(fast_network(), tmp_path)

        # When it asks for a pair code, Then it is not connected
        with pytest.raises(NetworkError) as not_started:
            await session.pair_phone(PHONE)
        assert not_started.value.kind is ErrorKind.NOT_CONNECTED

        # And once pairing, a bad phone is refused by the network
        await session.connect()
        with pytest.raises(NetworkError) as bad_phone:
            await session.pair_phone("12ab")
        assert bad_phone.value.kind is ErrorKind.INVALID
        await session.close()

    asyncio.run(scenario())


def test_qr_codes_rotate_then_pairing_times_out(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a network whose QR window is three short codes
        network = fast_network(qr_lifetimes=(0.03, 0.02, 0.02))
        session, recorder = open_session(network, tmp_path)

        # When the session starts pairing and nobody scans
        await session.connect()
        error = await recorder.wait_for("connection.pair_error")

        # Then it showed three different codes and ended not ready
        codes = [event.data["qr_code"] for event in recorder.named("qr.generated")]
        assert len(codes) == 3
        assert len(set(codes)) == 3
        assert error.data["reason"] == "qr_timeout"
        assert error.data["device_id"] == "dev-1"
        assert session.state is SessionState.NOT_READY
        assert session.current_qr is None
        assert network.connection_count("dev-1") == 0

        # And connecting again opens a new pairing window, which a manual disconnect ends
        network.qr_lifetimes = (5.0,)
        await session.connect()
        await recorder.wait_for("qr.generated", 4)
        assert session.state is SessionState.PAIRING
        await session.disconnect()
        stopped = await recorder.wait_for("device.disconnected")
        assert stopped.data["status"] == "not_ready"
        assert stopped.data["is_logged_in"] is False
        assert session.state is SessionState.NOT_READY
        assert network.connection_count("dev-1") == 0
        await session.close()

    asyncio.run(scenario())


def test_resume_from_stored_credentials(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device paired by one session that was then closed (host stopping)
        network = fast_network()
        first, first_events = await paired(network, tmp_path)
        await first.close()
        assert first_events.names()[-1] == "device.connected"  # close is quiet

        # When a new session of the same device starts from its data dir
        session, recorder = open_session(network, tmp_path)
        assert session.state is SessionState.DISCONNECTED
        assert session.jid == JID
        await session.connect()

        # Then it resumes without pairing
        await recorder.wait_for("device.connected")
        assert recorder.names() == ["device.connected"]
        assert session.state is SessionState.CONNECTED
        await session.close()

    asyncio.run(scenario())
