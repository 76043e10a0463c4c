"""Per-device locks and waiting for a session's state."""

from __future__ import annotations

import asyncio

from gateway.leases import Lease
from session_host.device_tenure import DeviceLocks, OwnedDevice

LEASE = Lease("d1", "t1", "host-a", None, 1, "tenure-a")


def test_commands_of_one_device_run_one_after_the_other_and_other_devices_run_meanwhile() -> None:
    async def scenario() -> list[str]:
        # Given two commands of device d1 and one of device d2
        locks = DeviceLocks()
        log: list[str] = []

        async def command(device_id: str, name: str, seconds: float) -> None:
            async with locks.hold(device_id):
                log.append(f"{name} start")
                await asyncio.sleep(seconds)
                log.append(f"{name} end")

        # When they run at once
        await asyncio.gather(command("d1", "a", 0.05), command("d1", "b", 0.0), command("d2", "c", 0.0))

        # Then the second command of d1 waited for the first; d2 did not wait; no lock is kept
        assert locks._locks == {}
        return log

    log = asyncio.run(scenario())
    assert log.index("a end") < log.index("b start")
    assert log.index("c end") < log.index("a end")


def test_waiting_for_a_state_wakes_on_an_event_and_gives_up_after_the_timeout() -> None:
    async def scenario() -> None:
        # Given a device whose state a command waits for
        owned = OwnedDevice("t1", "d1", LEASE)
        state = {"ready": False}

        async def event_arrives() -> None:
            await asyncio.sleep(0.02)
            state["ready"] = True
            owned.notify()

        # When an event brings that state / Then the wait ends with it
        asyncio.get_running_loop().create_task(event_arrives())
        assert await owned.wait_until(lambda: state["ready"], timeout=2)

        # When it never comes / Then the wait ends with False after the timeout
        assert not await owned.wait_until(lambda: False, timeout=0.05)

    asyncio.run(scenario())
