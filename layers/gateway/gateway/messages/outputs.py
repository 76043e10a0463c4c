"""Response bodies of the message routes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gateway.messages.sends import ShownState
from gateway.web.fields import Timestamp
from gateway.web.outputs import NextCursor, OutputModel, Succeeded

SEND_ID = "The gateway's id of the send (`gateway_message_id` of `message.sent`)"


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


class TextSentResponse(Succeeded):
    """200: the message went out while the request was held."""

    message_id: str = Field(description=SEND_ID)
    status: Literal["sent"] = "sent"
    chat_jid: str = Field(description="The chat, as a JID (phone digits become a user JID)")
    network_message_id: str = Field(
        description="The network's id of the message: the id receipts, replies, reactions and deletes "
        "name (`message.sent`'s `message_id`)"
    )


class TextScheduledResponse(Succeeded):
    """202: the message goes out after the hold limit; it stays in the device's outbox and
    ``message.sent`` follows its dispatch."""

    message_id: str = Field(description=SEND_ID)
    status: Literal["scheduled"] = "scheduled"
    chat_jid: str = Field(description="The chat, as a JID (phone digits become a user JID)")
    scheduled_for: Timestamp = Field(description="When it is expected to go out, as known now")


# Reactions and edits.
class ReactionResponse(Succeeded):
    message_id: str = Field(description="The id the request named (the gateway's or the network's)")
    chat_jid: str = Field(description="The chat's JID")
    emoji: str = Field(description="The reaction sent; empty when it was removed")


class EditMessageResponse(Succeeded):
    message_id: str = Field(description="The id the request named (the gateway's or the network's)")
    chat_jid: str = Field(description="The chat's JID")


# The outbox as a resource.


class SendView(OutputModel):
    """One send of the device's outbox."""

    message_id: str = Field(description=SEND_ID)
    chat_jid: str = Field(description="The chat, as a JID")
    kind: str = Field(
        description="What is sent: text, image, video, audio, document, sticker, location, contact, "
        "template, poll, or status (a planned status publish)"
    )
    state: ShownState = Field(
        description="scheduled (waiting for its time, its turn or its device), sending (a host is "
        "making the network call), sent, failed, or canceled"
    )
    scheduled_for: Timestamp = Field(description="When it was or is due to go out (`send_at` plus `delay`)")
    sent_at: Timestamp | None = Field(description="When it went out; null until then")
    network_message_id: str | None = Field(description="The network's id once sent; else null")
    error: str | None = Field(description="Why it failed; null unless failed")


class SendResponse(Succeeded, SendView):
    """GET /sends/{message_id}: the send's fields beside ``success``."""


class SendListResponse(Succeeded):
    sends: list[SendView] = Field(description="Newest request first")
    next: NextCursor = None


class SendCanceledResponse(Succeeded):
    message_id: str = Field(description=SEND_ID)
    state: Literal["canceled"] = "canceled"
