"""Contact operations of a simulated device session (its ``contacts``): number checks, one
account's profile with both identities, and blocking.

As every operation (:mod:`.link`): connected first (``NOT_CONNECTED``, nothing sent), the
inputs checked (``INVALID``, :mod:`..contact_checks`), then a fault injected for the port
method (``POST /_simulator/faults {operation: "check_numbers"}``), then the account acts on
the network (:meth:`~.core.NetworkCore.device`).

The rules (``docs/contacts.md``): a phone number is on the network when the simulator has an
account for it; every account has a LID from its creation (:func:`.model.new_lid`), so both
identities always resolve, either way. Its name is its push name and its About text what
``PATCH /_simulator/accounts/{phone}`` set (or its own device's PATCH /profile), its picture
the one its device set (PUT /profile/picture); no account is a business. A
block is kept on the blocking account (:attr:`.model.Account.blocked`, as user JIDs, a LID
resolved first) and enforced by the world (:meth:`.world.World.blocks`); every device linked
to the account, the acting one included, gets ``privacy.blocklist`` when the list changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from gateway.failures.kinds import ErrorKind

from .. import contact_checks, payloads
from ..contact_types import ContactInfo, NumberCheck
from ..port import NetworkError
from .core import DeviceLink, DeviceTurn, NetworkCore
from .model import Account


class SimulatedContacts:
    """A simulated session's ``contacts``: other accounts as the network knows them."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: NetworkCore = link.network

    async def check_numbers(self, phones: Sequence[str]) -> list[NumberCheck]:
        self._link.connection()
        distinct = contact_checks.check_phones(phones)
        await self._link.fault("check_numbers")
        with self._network.device(self._link.connection()) as turn:
            found = [(phone, turn.world.accounts.get(phone)) for phone in distinct]
        return [
            NumberCheck(phone=phone, on_network=True, jid=account.jid, lid=account.lid)
            if account
            else NumberCheck(phone=phone, on_network=False)
            for phone, account in found
        ]

    async def get_contact(self, jid: str) -> ContactInfo:
        self._link.connection()
        contact_checks.check_person(jid)
        await self._link.fault("get_contact")
        with self._network.device(self._link.connection()) as turn:
            account = _account(turn, jid)
            return ContactInfo(
                jid=account.jid,
                lid=account.lid,
                name=account.name,
                about=account.about,
                picture_url=account.picture_url,
            )

    async def block(self, jid: str) -> None:
        await self._change("block", jid, blocked=True)

    async def unblock(self, jid: str) -> None:
        await self._change("unblock", jid, blocked=False)

    async def get_blocklist(self) -> list[str]:
        self._link.connection()
        await self._link.fault("get_blocklist")
        with self._network.device(self._link.connection()) as turn:
            return list(turn.account.blocked)

    async def _change(self, operation: str, jid: str, *, blocked: bool) -> None:
        self._link.connection()
        contact_checks.check_person(jid)
        await self._link.fault(operation)
        with self._network.device(self._link.connection()) as turn:
            target = _account(turn, jid).jid
            if target == turn.account.jid:
                raise NetworkError(ErrorKind.INVALID, "an account cannot block itself")
            blocklist = turn.account.blocked
            if (target in blocklist) == blocked:
                return  # as it was: nothing changes, nothing to tell
            if blocked:
                blocklist.append(target)
            else:
                blocklist.remove(target)
            turn.changed()
            event = payloads.blocklist_changed([(target, "block" if blocked else "unblock")])
            for link in turn.world.links_of(turn.account.jid):
                turn.world.push(link.device_key, event)


def _account(turn: DeviceTurn, jid: str) -> Account:
    """The account a user JID or LID names; ``NOT_FOUND`` when the network has none."""
    person = turn.world.person(jid)
    account = turn.world.account_of_jid(person) if person is not None else None
    if account is None:
        raise NetworkError(ErrorKind.NOT_FOUND, f"{jid} is not on the network")
    return account
