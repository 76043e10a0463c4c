"""Response bodies of the contact routes."""

from __future__ import annotations

from pydantic import Field

from gateway.web.outputs import OutputModel, Succeeded

_LID = "The account's LID (`<digits>@lid`), the identity the network shows where it hides phone numbers"


class NumberCheckView(OutputModel):
    number: str = Field(description="The phone number as asked")
    on_network: bool = Field(description="Whether the number has an account on the messaging network")
    jid: str | None = Field(
        description="The account's user JID as the network spells it (write to this one); null when "
        "not on the network"
    )
    lid: str | None = Field(description=f"{_LID}; null when not on the network or not known yet")


class ContactChecksResponse(Succeeded):
    results: list[NumberCheckView] = Field(description="One per distinct number, in the order asked")


class ContactView(OutputModel):
    jid: str | None = Field(
        description="The account's user JID (`<phone>@s.whatsapp.net`); null when it was asked by a "
        "LID whose phone number the network keeps hidden from the device"
    )
    lid: str | None = Field(description=f"{_LID}; null when not known")
    name: str | None = Field(
        description="The business name, the name the account's phone saved, or the account's own "
        "push name; null when none is known"
    )
    about: str | None = Field(description="The account's About text; null when empty or hidden")
    picture_url: str | None = Field(
        description="A URL of the account's profile picture; null when none or hidden"
    )
    is_business: bool = Field(description="Whether it is a (verified) business account")


class ContactResponse(Succeeded):
    contact: ContactView


class BlockResponse(Succeeded):
    jid: str = Field(description="The account as named in the path (phone digits become a user JID)")
    blocked: bool = Field(description="Whether the device's account now blocks it")


class BlocklistResponse(Succeeded):
    jids: list[str] = Field(
        description="The accounts the device's account blocks: user JIDs, or LIDs whose phone number "
        "the device does not know"
    )
