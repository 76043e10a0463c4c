"""A scripted network for the neonize adapter's contact calls: the accounts of the contract
suite's backend, answered through neonize's real method signatures and protobufs.

The network knows every account (``accounts``: a user JID or LID to the account's user JID);
whatsmeow's store learns an account's other identity only from a user-info query, as the real
one does, so the adapter's "ask, then read the store again" path is what runs. Profiles hold
what :meth:`ScriptedContacts.set_profile` gave (push name, About text); no account has a
picture (whatsmeow's own error for that), none is a business.
"""

from __future__ import annotations

from typing import Any
from unittest.mock import create_autospec

from neonize import exc
from neonize.client import ContactStore
from neonize.proto.Neonize_pb2 import (
    JID,
    Blocklist,
    ContactInfo,
    GetProfilePictureReturnFunction,
    GetUserInfoSingleReturnFunction,
    IsOnWhatsAppResponse,
    UserInfo,
)
from neonize.utils.enum import BlocklistAction

from gateway import jids
from session_host.network.neonize.jids import jid_str, parse_jid

NO_PICTURE = "that user or group does not have a profile picture"  # whatsmeow's ErrProfilePictureNotSet


class ScriptedContacts:
    """Answers a fake client's contact calls from ``accounts`` (shared with the backend)."""

    def __init__(self, client: Any, accounts: dict[str, str]) -> None:
        self.accounts = accounts
        self.learned: set[str] = set()  # user JIDs whose LID whatsmeow's store knows
        self.profiles: dict[str, tuple[str | None, str | None]] = {}
        self.blocked: list[JID] = []
        client.is_on_whatsapp.side_effect = self.is_on_whatsapp
        client.get_user_info.side_effect = self.get_user_info
        client.get_lid_from_pn.side_effect = self.get_lid_from_pn
        client.get_pn_from_lid.side_effect = self.get_pn_from_lid
        client.get_profile_picture.side_effect = self.get_profile_picture
        client.update_blocklist.side_effect = self.update_blocklist
        client.get_blocklist.side_effect = lambda: Blocklist(DHash="h", JIDs=list(self.blocked))
        client.contact = create_autospec(ContactStore, instance=True)
        client.contact.get_contact.side_effect = self.get_contact

    def set_profile(self, jid: str, name: str | None, about: str | None) -> None:
        self.profiles[jid] = (name, about)

    def _lid(self, user_jid: str) -> str:
        return next(key for key, owner in self.accounts.items() if owner == user_jid and jids.is_lid(key))

    def is_on_whatsapp(self, *numbers: str) -> list[IsOnWhatsAppResponse]:
        answers = []
        for number in numbers:
            user_jid = jids.user_jid(number)
            answers.append(
                IsOnWhatsAppResponse(
                    Query=f"+{number}", JID=parse_jid(user_jid), IsIn=user_jid in self.accounts
                )
            )
        return answers

    def get_user_info(self, *people: JID) -> list[GetUserInfoSingleReturnFunction]:
        found = []
        for person in people:
            owner = self.accounts.get(jid_str(person) or "")
            if owner is None:
                continue
            self.learned.add(owner)
            _, about = self.profiles.get(owner, (None, None))
            found.append(GetUserInfoSingleReturnFunction(JID=person, UserInfo=UserInfo(Status=about or "")))
        return found

    def get_lid_from_pn(self, phone_jid: JID) -> JID:
        owner = jid_str(phone_jid) or ""
        return parse_jid(self._lid(owner)) if owner in self.learned else JID()

    def get_pn_from_lid(self, lid: JID) -> JID:
        owner = self.accounts.get(jid_str(lid) or "")
        return parse_jid(owner) if owner in self.learned else JID()

    def get_profile_picture(self, jid: JID, *_: Any) -> Any:
        raise exc.GetProfilePictureError(GetProfilePictureReturnFunction(Error=NO_PICTURE))

    def get_contact(self, jid: JID) -> ContactInfo:
        name, _ = self.profiles.get(self.accounts.get(jid_str(jid) or "", ""), (None, None))
        return ContactInfo(Found=name is not None, PushName=name or "")

    def update_blocklist(self, jid: JID, action: BlocklistAction) -> Blocklist:
        self.blocked = [entry for entry in self.blocked if jid_str(entry) != jid_str(jid)]
        if action is BlocklistAction.BLOCK:
            self.blocked.append(jid)
        return Blocklist(DHash="h", JIDs=list(self.blocked))
