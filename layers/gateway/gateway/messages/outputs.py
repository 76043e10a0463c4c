"""Response bodies of the message routes."""

from __future__ import annotations

from pydantic import Field

from gateway.web.outputs import Succeeded


class MarkReadResponse(Succeeded):
    chat_jid: str = Field(description="The chat's JID, as the phone digits given resolved")
    message_ids: list[str] = Field(description="The ids read receipts were sent for, each once")


class DeleteMessageResponse(Succeeded):
    message_id: str = Field(description="The id the request named (the gateway's or the network's)")
    gateway_message_id: str = Field(description="The gateway's id of the message (POST /send/* answered it)")
    network_message_id: str = Field(
        description="The network's id of the message (`message.sent`'s `message_id`)"
    )
    chat_jid: str = Field(description="The chat's JID")
    for_everyone: bool = Field(description="Deleted for everyone (true) or only for the device's account")


class HistorySyncResponse(Succeeded):
    chat_jid: str = Field(description="The chat's JID")
    count: int = Field(description="How many messages were asked for; the answer comes as `history.sync`")
