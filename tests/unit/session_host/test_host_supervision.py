"""The supervisor of a device's session: backoff, deadlines, permanent ends, manual reconnect."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from gateway.failures.kinds import ErrorKind
from session_host.network import payloads
from session_host.network.port import NetworkError, NetworkEvent, SessionState
from session_host.supervision import Backoff, SupervisionSettings, Supervisor


class ScriptedSession:
    """A session whose attempts end as the test says; counts connects and closes."""

    def __init__(self) -> None:
        self.state = SessionState.DISCONNECTED
        self.connects = 0
        self.closes = 0
        self.refuse_with: NetworkError | None = None
        self.proxy_url: str | None = None
        self.dialed_through: list[str | None] = []  # the proxy of each attempt

    def use_proxy(self, proxy_url: str | None) -> None:
        self.proxy_url = proxy_url

    async def connect(self) -> None:
        self.connects += 1
        self.dialed_through.append(self.proxy_url)
        if self.refuse_with is not None:
            raise self.refuse_with

    async def close(self) -> None:
        self.closes += 1


class Harness:
    def __init__(self, settings: SupervisionSettings) -> None:
        self.session = ScriptedSession()
        self.published: list[NetworkEvent] = []
        self.ended = False
        self.now = 1_000.0
        # What each read of the device's proxy gives (the last one repeats)
        self.proxies: list[str | NetworkError | None] = [None]
        self.supervisor = Supervisor(
            "dev-1",
            session=self.session,  # type: ignore[arg-type]
            sink=self.sink,
            run_locked=self.run_locked,
            proxy=self.read_proxy,
            settings=settings,
            clock=lambda: self.now,
        )

    async def read_proxy(self) -> str | None:
        """As the host reads the device record: a read that fails raises the host's error."""
        value = self.proxies.pop(0) if len(self.proxies) > 1 else self.proxies[0]
        if isinstance(value, NetworkError):
            raise value
        return value

    async def sink(self, event: NetworkEvent) -> None:
        """As the host's sink: the supervisor sees each event before it is published."""
        event, ends = self.supervisor.observe(event)
        self.published.append(event)
        self.ended = self.ended or ends

    async def run_locked(self, step: Callable[[], Awaitable[None]]) -> None:
        await step()

    def failures(self) -> list[dict[str, object]]:
        return [dict(e.data) for e in self.published if e.name == "connection.failure"]

    async def wait(self, ready: Callable[[], bool], timeout: float = 2.0) -> None:
        async with asyncio.timeout(timeout):
            while not ready():
                await asyncio.sleep(0.005)


FAST = SupervisionSettings(backoff=Backoff(initial=0.02, maximum=0.08, jitter=0.0), dial_timeout=5.0)


def test_every_attempt_dials_through_the_proxy_the_record_holds_then() -> None:
    async def scenario() -> None:
        # Given a device whose proxy is read as set, then (a PATCH meanwhile) removed
        h = Harness(FAST)
        h.proxies = ["socks5://u:p@proxy.example:1080", None]
        h.session.refuse_with = NetworkError(ErrorKind.NETWORK, "dial refused")
        # When it connects and its first attempt fails, so the next one comes
        await h.supervisor.start()
        await h.wait(lambda: h.session.connects >= 2)
        h.supervisor.stop()
        # Then each attempt went the way the record said just before it
        assert h.session.dialed_through[:2] == ["socks5://u:p@proxy.example:1080", None]

    asyncio.run(scenario())


def test_a_proxy_that_cannot_be_read_fails_the_attempt_and_never_dials_without_it() -> None:
    async def scenario() -> None:
        # Given a device record that cannot be read once
        h = Harness(FAST)
        h.proxies = [
            NetworkError(ErrorKind.NETWORK, "the device's settings could not be read"),
            "http://p:3128",
        ]
        # When it connects
        await h.supervisor.start()
        await h.wait(lambda: h.session.connects >= 1)
        h.supervisor.stop()
        # Then the first attempt is a failure without a dial, and the retry went through the proxy
        assert h.failures()[0]["reason"] == "dial_error"
        assert "settings could not be read" in str(h.failures()[0]["message"])
        assert h.session.dialed_through == ["http://p:3128"]

    asyncio.run(scenario())


def test_backoff_doubles_to_its_ceiling_within_the_jitter() -> None:
    backoff = Backoff(initial=2.0, maximum=300.0, jitter=0.2)
    assert [backoff.delay(n, rand=lambda: 0.5) for n in (1, 2, 3, 8, 9, 20)] == [2, 4, 8, 256, 300, 300]
    assert backoff.delay(1, rand=lambda: 0.0) == pytest.approx(1.6)
    assert backoff.delay(1, rand=lambda: 1.0) == pytest.approx(2.4)


def test_failed_attempts_are_numbered_and_retried_after_a_growing_wait() -> None:
    async def scenario() -> None:
        # Given a session whose attempts fail
        h = Harness(FAST)
        await h.supervisor.start()

        # When three attempts fail in a row
        for attempt in range(1, 4):
            await h.sink(payloads.connection_failure("dev-1", "dial_error", "refused"))
            await h.wait(lambda a=attempt: h.session.connects == a + 1)

        # Then each failure carries its number, when the next one comes, and is not permanent;
        # and the waits double (0.02, 0.04, 0.08 s)
        failures = h.failures()
        assert [f["attempt"] for f in failures] == [1, 2, 3]
        assert all(f["permanent"] is False and f["reconnect_at"] for f in failures)
        assert failures[2]["reconnect_at"] == payloads.iso_utc(1_000.08)
        assert not h.ended
        h.supervisor.stop()

    asyncio.run(scenario())


def test_the_count_starts_afresh_after_a_connection_that_lasted() -> None:
    async def scenario() -> None:
        h = Harness(
            SupervisionSettings(backoff=Backoff(initial=10, reset_after=60, jitter=0), dial_timeout=5)
        )
        await h.supervisor.start()
        await h.sink(payloads.connection_failure("dev-1", "dial_error", "refused"))
        await h.sink(payloads.device_connected("dev-1", "1@s.whatsapp.net"))
        # a short connection keeps the count
        h.now += 30
        await h.sink(payloads.connection_failure("dev-1", "connection_lost", "dropped"))
        assert h.failures()[-1]["attempt"] == 2
        # a connection of a minute resets it
        await h.sink(payloads.device_connected("dev-1", "1@s.whatsapp.net"))
        h.now += 61
        await h.sink(payloads.connection_failure("dev-1", "connection_lost", "dropped"))
        assert h.failures()[-1]["attempt"] == 1
        h.supervisor.stop()

    asyncio.run(scenario())


def test_an_attempt_without_an_outcome_is_closed_and_counted_as_a_timeout() -> None:
    async def scenario() -> None:
        # Given a network that never answers and a short dial deadline
        h = Harness(SupervisionSettings(backoff=Backoff(initial=30), dial_timeout=0.05))

        # When an attempt starts
        await h.supervisor.start()

        # Then at the deadline the attempt is closed and reported as a timeout, retried later
        await h.wait(lambda: bool(h.failures()))
        assert h.session.closes == 1
        assert h.failures()[0]["reason"] == "timeout"
        assert h.supervisor.reconnect_at is not None
        h.supervisor.stop()

    asyncio.run(scenario())


def test_a_drop_the_adapter_does_not_recover_in_time_is_a_timeout_too() -> None:
    async def scenario() -> None:
        h = Harness(SupervisionSettings(backoff=Backoff(initial=30), dial_timeout=0.05))
        await h.supervisor.start()
        await h.sink(payloads.device_connected("dev-1", "1@s.whatsapp.net"))
        await h.sink(payloads.device_disconnected("dev-1", "connection_lost"))
        await h.wait(lambda: bool(h.failures()))
        assert h.failures()[0]["reason"] == "timeout"
        h.supervisor.stop()

    asyncio.run(scenario())


def test_reaching_the_network_cancels_the_deadline() -> None:
    async def scenario() -> None:
        h = Harness(SupervisionSettings(backoff=Backoff(initial=30), dial_timeout=0.05))
        await h.supervisor.start()
        await h.sink(payloads.qr_generated("dev-1", "2@qr", 2_000.0))
        # (a twin started after it, that never reaches the network, proves its deadline is past)
        twin = Harness(SupervisionSettings(backoff=Backoff(initial=30), dial_timeout=0.05))
        await twin.supervisor.start()
        await twin.wait(lambda: bool(twin.failures()))
        twin.supervisor.stop()
        assert h.failures() == []
        assert h.session.closes == 0
        assert not h.supervisor.trying

    asyncio.run(scenario())


def test_a_permanent_failure_ends_the_tenure_without_a_retry() -> None:
    async def scenario() -> None:
        h = Harness(FAST)
        await h.supervisor.start()
        event = payloads.connection_failure("dev-1", "client_outdated", "update neonize", permanent=True)
        await h.sink(event)
        assert h.ended
        assert h.failures()[0] == {
            "device_id": "dev-1",
            "reason": "client_outdated",
            "message": "update neonize",
            "permanent": True,
            "attempt": 1,
            "reconnect_at": None,
        }
        assert not h.supervisor.trying

    asyncio.run(scenario())


def test_a_temporary_ban_is_waited_out() -> None:
    async def scenario() -> None:
        h = Harness(FAST)
        await h.supervisor.start()
        ban = NetworkEvent(
            "connection.temporary_ban",
            {"device_id": "dev-1", "code": "x", "expires_at": payloads.iso_utc(1_600)},
        )
        await h.sink(ban)
        assert h.published[-1].data["reconnect_at"] == payloads.iso_utc(1_600)
        assert h.supervisor.reconnect_at == 1_600
        h.supervisor.stop()

    asyncio.run(scenario())


def test_a_refusal_to_start_counts_as_a_failed_attempt_but_unsupported_raises() -> None:
    async def scenario() -> None:
        h = Harness(SupervisionSettings(backoff=Backoff(initial=30), dial_timeout=5))
        h.session.refuse_with = NetworkError(ErrorKind.TIMEOUT, "slow")
        await h.supervisor.start()
        assert h.failures()[0]["reason"] == "timeout"
        assert h.supervisor.trying
        h.session.refuse_with = NetworkError(ErrorKind.UNSUPPORTED, "same account twice")
        with pytest.raises(NetworkError):
            await h.supervisor.start()
        h.supervisor.stop()

    asyncio.run(scenario())


def test_manual_reconnect_resets_the_count_and_starts_now() -> None:
    async def scenario() -> None:
        h = Harness(SupervisionSettings(backoff=Backoff(initial=30), dial_timeout=5))
        await h.supervisor.start()
        for _ in range(3):
            await h.sink(payloads.connection_failure("dev-1", "dial_error", "refused"))
        await h.supervisor.reconnect_now()
        assert [e.name for e in h.published][-1] == "connection.manual_reconnect"
        assert h.session.connects == 2
        assert h.session.closes == 1
        await h.sink(payloads.connection_failure("dev-1", "dial_error", "refused"))
        assert h.failures()[-1]["attempt"] == 1
        h.supervisor.stop()

    asyncio.run(scenario())


def test_nothing_fires_after_the_tenure_ends() -> None:
    async def scenario() -> None:
        h = Harness(FAST)
        await h.supervisor.start()
        await h.sink(payloads.connection_failure("dev-1", "dial_error", "refused"))
        h.supervisor.stop()
        # (a twin failing after it, whose tenure goes on, proves the retry's time is past)
        twin = Harness(FAST)
        await twin.supervisor.start()
        await twin.sink(payloads.connection_failure("dev-1", "dial_error", "refused"))
        await twin.wait(lambda: twin.session.connects == 2)
        twin.supervisor.stop()
        assert h.session.connects == 1

    asyncio.run(scenario())
