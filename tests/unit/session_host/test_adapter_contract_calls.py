"""One contract, two adapters: the device declines a call its account is offered
(``adapter_backends``): the caller sees it rejected, nothing else reaches the network.

Not part of the contract: a call id the network does not know ringing. The simulated network
refuses it (``NOT_FOUND``, below); the real one takes any id without a word, so neonize cannot.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from adapter_backends import Backend
from test_adapter_contract_groups import ADAPTERS, BOB, CAI, on
from test_adapter_contract_message_ops import fails

from gateway.failures.kinds import ErrorKind


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_device_rejects_a_call_and_the_caller_sees_it_rejected(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given Bob and Cai calling the device
        bob, _ = net.person(BOB)
        cai, _ = net.person(CAI)
        offer = await net.call_from(bob)
        await net.call_from(cai)
        before = net.put_on_network()
        # When the device rejects Bob's call, naming him as call.offer did
        assert offer.data["from"] == bob
        await net.session.calls.reject_call(offer.data["from"], offer.data["call_id"])
        # Then Bob sees that call rejected, Cai's still rings, and no message went out
        assert net.rejected_calls(bob) == [offer.data["call_id"]]
        assert net.rejected_calls(cai) == []
        assert net.put_on_network() == before

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_rejection_naming_no_person_is_refused_before_the_network(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        offer = await net.call_from(bob)
        for caller, call_id in (("not a jid", offer.data["call_id"]), (bob, "")):
            await fails(ErrorKind.INVALID, net.session.calls.reject_call(caller, call_id))
        assert net.rejected_calls(bob) == []

    on(adapter, tmp_path, scenario)


def test_the_simulated_network_refuses_a_call_that_does_not_ring(tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a call Bob made that the device rejected already
        bob, _ = net.person(BOB)
        offer = await net.call_from(bob)
        call_id = offer.data["call_id"]
        await net.session.calls.reject_call(bob, call_id)
        # Then rejecting it again, an unknown call, or Bob's call as someone else's is NOT_FOUND
        cai, _ = net.person(CAI)
        again = await net.call_from(bob)
        for caller, unknown in ((bob, call_id), (bob, "0123ABCD"), (cai, again.data["call_id"])):
            await fails(ErrorKind.NOT_FOUND, net.session.calls.reject_call(caller, unknown))
        assert net.rejected_calls(bob) == [call_id]

    on("simulated", tmp_path, scenario)


def test_neonize_rejects_to_the_caller_as_the_offer_named_it(tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a call offered by the caller's LID, which call.offer shows as the phone JID
        bob, lid = net.person(BOB)
        offer = await net.call_from(bob)
        # When the device rejects it by the phone JID
        await net.session.calls.reject_call(bob, offer.data["call_id"])
        # Then whatsmeow is given the LID the offer came from, as its RejectCall wants
        client = net.network.client  # type: ignore[attr-defined]
        [(caller, call_id)] = [c.args for c in client.reject_call.call_args_list]
        assert (f"{caller.User}@{caller.Server}", call_id) == (lid, offer.data["call_id"])

    on("neonize", tmp_path, scenario)
