"""The host's automatic call rejection (``session_host.call_rejection``): only with the device's
setting on, the caller's text sent after the rejection, and what happens when a step fails."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from types import SimpleNamespace
from typing import Any, cast

from pynamodb.exceptions import GetError

from gateway.failures.kinds import ErrorKind
from gateway.webhooks.catalog import EventName
from session_host import records
from session_host.aws_calls import AwsCalls
from session_host.call_rejection import AutoRejection
from session_host.device_tenure import OwnedDevice
from session_host.network.port import NetworkError, NetworkEvent, SentMessage

CALLER = "5511999998888@s.whatsapp.net"
OWN = "15551234567@s.whatsapp.net"
OFFER = NetworkEvent(name=EventName.CALL_OFFER, data={"call_id": "C1", "from": CALLER})
ENDED = NetworkEvent(name=EventName.CALL_TERMINATE, data={"call_id": "C1", "from": CALLER})


class Session:
    """A connected session that records what it was asked, failing where the test says."""

    def __init__(self, *, reject_fails: bool = False, send_fails: bool = False) -> None:
        self.jid = OWN
        self.rejected: list[tuple[str, str]] = []
        self.texts: list[tuple[str, str]] = []
        self._reject_fails, self._send_fails = reject_fails, send_fails
        self.calls = SimpleNamespace(reject_call=self.reject_call)
        self.sending = SimpleNamespace(send_text=self.send_text)

    async def reject_call(self, caller: str, call_id: str) -> None:
        if self._reject_fails:
            raise NetworkError(ErrorKind.NETWORK, "the network failed")
        self.rejected.append((caller, call_id))

    async def send_text(self, to: str, text: str) -> SentMessage:
        if self._send_fails:
            raise NetworkError(ErrorKind.NETWORK, "the network failed")
        self.texts.append((to, text))
        return SentMessage("3EB0REPLY", to, 1.0)


def answer(settings: records.DeviceSettings | Exception | None, session: Session) -> list[NetworkEvent]:
    """Offer a call to a device with ``settings`` (an exception: the record cannot be read);
    the events the host published after the offer."""
    published: list[NetworkEvent] = []
    tasks: list[asyncio.Task[None]] = []

    async def aws(fn: Any, *args: Any) -> Any:
        assert fn is records.settings
        if isinstance(settings, Exception):
            raise settings
        return settings

    async def publish(_owned: OwnedDevice, event: NetworkEvent) -> None:
        published.append(event)

    async def main() -> None:
        def spawn(coroutine: Coroutine[Any, Any, None]) -> None:
            tasks.append(asyncio.get_running_loop().create_task(coroutine))

        rejection = AutoRejection(aws=cast(AwsCalls, aws), publish=publish, spawn=spawn)
        owned = cast(
            OwnedDevice, SimpleNamespace(device_id="d1", tenant_id="t1", active=True, session=session)
        )
        rejection.observe(owned, OFFER)
        rejection.observe(owned, NetworkEvent(name="call.terminate", data={"call_id": "C1"}))  # type: ignore[arg-type]
        await asyncio.gather(*tasks)

    asyncio.run(main())
    return published


def test_with_the_setting_on_the_call_is_rejected_and_the_caller_gets_the_text() -> None:
    session = Session()
    published = answer(records.DeviceSettings(None, True, "Please write."), session)
    assert session.rejected == [(CALLER, "C1")]
    assert session.texts == [(CALLER, "Please write.")]
    [event] = published
    assert (event.name, event.data["by"], event.data["reply_message_id"]) == (
        "call.reject",
        "auto",
        "3EB0REPLY",
    )


def test_with_the_setting_off_or_the_device_gone_or_unreadable_the_call_keeps_ringing() -> None:
    for settings in (records.DeviceSettings(None, False, "Please write."), None, GetError("throttled")):
        session = Session()
        assert answer(settings, session) == []
        assert (session.rejected, session.texts) == ([], [])


def test_a_failed_rejection_sends_nothing_and_a_failed_text_still_reports_the_rejection() -> None:
    # Given a rejection the network fails: no text, no event
    failing = Session(reject_fails=True)
    assert answer(records.DeviceSettings(None, True, "Please write."), failing) == []
    assert failing.texts == []
    # Given a text the network fails: the rejection stands and says no text went out
    mute = Session(send_fails=True)
    [event] = answer(records.DeviceSettings(None, True, "Please write."), mute)
    assert mute.rejected == [(CALLER, "C1")]
    assert event.data["reply_message_id"] is None
