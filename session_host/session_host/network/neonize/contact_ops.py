"""Contact operations of a neonize session (its ``contacts``): number checks, one account's
profile with both identities, and blocking.

What neonize 0.5.2 can do here (read from its source):

- **Number checks**: ``is_on_whatsapp(*phones)``, one network query for all of them; each
  answer names its ``Query`` and the account's ``JID`` as the network spells it (which may
  differ from the number asked: the answer's JID is the one to write to).
- **LIDs** come from whatsmeow's store (``get_lid_from_pn`` / ``get_pn_from_lid``), which
  learns them from messages, groups and user-info queries. An identity the store does not
  know yet is asked about once with ``get_user_info`` (one query for all of them), then read
  again; one still unknown is null. neonize's ``UserInfo`` has no LID field of its own.
- **One account**: ``get_user_info`` (About text ``Status``, ``VerifiedName`` for business
  accounts; asked first, as it teaches the store the other identity),
  ``get_profile_picture`` (its URL; hidden or never set: null) and the contact store
  (``contact.get_contact``: the name the phone saved, else the push name). A phone number is
  checked first with ``is_on_whatsapp`` (``NOT_FOUND`` when it has no account).
- **Blocking**: ``update_blocklist(jid, BlocklistAction.BLOCK | UNBLOCK)`` and
  ``get_blocklist()``; a LID in the list is shown as the phone JID where the store knows it
  (or learns it). A phone number is checked with ``is_on_whatsapp`` before it is blocked
  (``NOT_FOUND``).

The store lookups and the contact store abort the process on a client that is not
connected: every call goes through the link's gated call, which checks the session first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from neonize.client import NewClient
from neonize.proto.Neonize_pb2 import JID, GetProfilePictureParams, IsOnWhatsAppResponse, UserInfo
from neonize.proto.Neonize_pb2 import ContactInfo as StoredContact  # whatsmeow's store entry
from neonize.utils.enum import BlocklistAction

from gateway import jids
from gateway.failures.kinds import ErrorKind

from .. import contact_checks
from ..contact_types import ContactInfo, NumberCheck
from ..port import NetworkError
from .jids import is_lid, jid_str, parse_jid
from .link import DeviceLink

NO_PICTURE_ERRORS = ("does not have a profile picture", "hidden their profile picture")
"""whatsmeow's ``ErrProfilePictureNotSet`` and ``ErrProfilePictureUnauthorized``: no URL to show."""


class NeonizeContacts:
    """A neonize session's ``contacts``: every library call through its link's gated call."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link

    async def check_numbers(self, phones: Sequence[str]) -> list[NumberCheck]:
        distinct = contact_checks.check_phones(phones)

        def check(client: NewClient) -> list[NumberCheck]:
            answers = _by_phone(client.is_on_whatsapp(*distinct))
            results = [_number_check(phone, answers.get(phone)) for phone in distinct]
            found = [answers[r.phone].JID for r in results if r.on_network]
            lids = dict(zip((jid_str(jid) for jid in found), _learned(client, found, _lid), strict=True))
            return [r.model_copy(update={"lid": jid_str(lids.get(r.jid))}) for r in results]

        return await self._link.call("check numbers", check)

    async def get_contact(self, jid: str) -> ContactInfo:
        address = contact_checks.check_person(jid)
        return await self._link.call("get contact", lambda client: _contact(client, address))

    async def block(self, jid: str) -> None:
        await self._update("block contact", jid, BlocklistAction.BLOCK)

    async def unblock(self, jid: str) -> None:
        await self._update("unblock contact", jid, BlocklistAction.UNBLOCK)

    async def get_blocklist(self) -> list[str]:
        def read(client: NewClient) -> list[str]:
            blocked = list(client.get_blocklist().JIDs)
            lids = [jid for jid in blocked if is_lid(jid)]
            phones = dict(zip((jid_str(lid) for lid in lids), _learned(client, lids, _phone_of), strict=True))
            shown = (jid_str(phones.get(jid_str(jid)) or jid) for jid in blocked)
            return list(dict.fromkeys(jid for jid in shown if jid))

        return await self._link.call("get blocklist", read)

    async def _update(self, operation: str, jid: str, action: BlocklistAction) -> None:
        address = contact_checks.check_person(jid)
        if address.jid == self._link.own_jid():
            raise NetworkError(ErrorKind.INVALID, "an account cannot block itself")

        def update(client: NewClient) -> None:
            target = parse_jid(address.jid)
            if address.kind is jids.JidKind.USER:
                target = _account(client, address.jid).JID
            client.update_blocklist(target, action)

        await self._link.call(operation, update)


def _by_phone(answers: Iterable[IsOnWhatsAppResponse]) -> dict[str, IsOnWhatsAppResponse]:
    """The answers by the number asked (``Query``, ``+`` and any server dropped) and by the
    number of the JID answered."""
    found: dict[str, IsOnWhatsAppResponse] = {}
    for answer in answers:
        found.setdefault(answer.JID.User, answer)
        found[answer.Query.lstrip("+").partition("@")[0]] = answer
    return found


def _number_check(phone: str, answer: IsOnWhatsAppResponse | None) -> NumberCheck:
    if answer is None or not answer.IsIn:
        return NumberCheck(phone=phone, on_network=False)
    return NumberCheck(phone=phone, on_network=True, jid=jid_str(answer.JID))


def _account(client: NewClient, user_jid: str) -> IsOnWhatsAppResponse:
    """The network's answer for the account of a user JID; ``NOT_FOUND`` when it has none."""
    phone = user_jid.partition("@")[0]
    answer = _by_phone(client.is_on_whatsapp(phone)).get(phone)
    if answer is None or not answer.IsIn:
        raise NetworkError(ErrorKind.NOT_FOUND, f"{user_jid} is not on the network")
    return answer


def _learned(
    client: NewClient, people: Sequence[JID], read: Callable[[NewClient, JID], JID | None]
) -> list[JID | None]:
    """The other identity of each of ``people`` as ``read`` finds it in whatsmeow's store
    (``_lid`` of a phone JID, ``_phone_of`` of a LID), after one user-info query for those it
    did not know yet: whatsmeow stores the identities such a query brings."""
    found = [read(client, jid) for jid in people]
    missing = [jid for jid, other in zip(people, found, strict=True) if other is None]
    if missing:
        client.get_user_info(*missing)
        found = [other or read(client, jid) for jid, other in zip(people, found, strict=True)]
    return found


def _lid(client: NewClient, phone_jid: JID) -> JID | None:
    lid = client.get_lid_from_pn(phone_jid)
    return lid if lid.User else None


def _phone_of(client: NewClient, lid: JID) -> JID | None:
    phone = client.get_pn_from_lid(lid)
    return phone if phone.User else None


def _contact(client: NewClient, address: jids.Address) -> ContactInfo:
    """The account ``address`` names, both identities resolved where whatsmeow can: the
    user-info query first, as it teaches whatsmeow's store the other identity."""
    if address.kind is jids.JidKind.LID:
        asked = parse_jid(address.jid)
        target = _phone_of(client, asked) or asked
    else:
        target = _account(client, address.jid).JID
    infos = client.get_user_info(target)
    if not infos:
        raise NetworkError(ErrorKind.NOT_FOUND, f"{address.jid} is not on the network")
    info: UserInfo = infos[0].UserInfo
    if address.kind is jids.JidKind.LID:
        lid: JID | None = asked
        phone = _phone_of(client, asked)
    else:
        lid, phone = _lid(client, target), target
    business = info.HasField("VerifiedName")
    name = info.VerifiedName.Details.verifiedName if business else ""
    return ContactInfo(
        jid=jid_str(phone),
        lid=jid_str(lid),
        name=name or _saved_name(client.contact.get_contact(phone or target)),
        about=info.Status or None,
        picture_url=picture_url(client, target),
        is_business=business,
    )


def _saved_name(contact: StoredContact) -> str | None:
    """The name the account's phone saved for the contact, else the contact's push name."""
    if not contact.Found:
        return None
    return contact.FullName or contact.FirstName or contact.PushName or contact.BusinessName or None


def picture_url(client: NewClient, jid: JID) -> str | None:
    """The URL of the account's picture (the device's own too); None when it has none or
    hides it from the device (the full picture, not its preview)."""
    try:
        picture = client.get_profile_picture(jid, GetProfilePictureParams(Preview=False))
    except Exception as exc:
        if any(marker in str(exc) for marker in NO_PICTURE_ERRORS):
            return None
        raise
    return picture.URL or None
