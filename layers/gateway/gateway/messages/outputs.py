"""Response bodies of the message routes."""

from __future__ import annotations

from pydantic import Field

from gateway.web.outputs import Succeeded


class MarkReadResponse(Succeeded):
    chat_jid: str = Field(description="The chat's JID, as the phone digits given resolved")
    message_ids: list[str] = Field(description="The ids read receipts were sent for, each once")
