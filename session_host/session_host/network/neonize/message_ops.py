"""Message operations of a neonize session: revoke, delete for me, history sync.

What neonize 0.5.2 can do here (read from its source and its Go library's exports):

- **Revoke** (delete for everyone): ``send_message(chat, build_revoke(chat, own JID, id,
  with_go=True))``. ``with_go`` builds the key in whatsmeow, which knows the account's LID
  too; neonize's ``revoke_message`` builds it in Python comparing phone users only and
  misjudges LID senders. Neither the network nor whatsmeow tells beforehand whether the id
  is a message of this account or whether the revoke window (60 hours) has passed: the
  session host checks both from its own record of sent messages.
- **Delete for me** is ``UNSUPPORTED`` (501 ``UNSUPPORTED_OPERATION``), like every other
  app-state write (archive, pin, mute, mark chat read): it is an app-state patch, and
  neonize 0.5.2's ``send_app_state`` cannot send one correctly (its Go decoder compares enum
  pointers, so the patch name is always empty, and reads the timestamp as nanoseconds).
  Nothing reaches the library; the session host's own checks of the request still run first.
- **History sync on demand** is ``UNSUPPORTED``: whatsmeow sends the request built by
  ``build_history_sync_request`` as a *peer* message (``SendPeerMessage`` /
  ``SendRequestExtra{Peer: true}``), but neonize's ``send_message`` takes no extra and its
  Go library exports no peer send (``SendMessage``, ``SendFBMessage`` for FB application
  messages, ``SendAppState``, ...). Sent as a plain message to the own account, the phone
  would not take it as a request; nothing is sent.
"""

from __future__ import annotations

from neonize.client import NewClient

from .. import message_checks
from ..port import REAL_REVOKE_WINDOW_SECONDS, MessageRef
from .catalog import unsupported
from .jids import parse_jid
from .operations import OperationsMixin


class MessageOpsMixin(OperationsMixin):
    """Message operations of ``NeonizeSession``; the state and ``_call`` are the session's."""

    @property
    def revoke_window_seconds(self) -> float:
        """The real network's window; whatsmeow does not check it, the session host does."""
        return REAL_REVOKE_WINDOW_SECONDS

    async def revoke_message(self, chat: str, message_id: str) -> None:
        message_checks.check_message(chat, message_id)
        chat_jid = parse_jid(chat)

        def revoke(client: NewClient) -> None:
            message = client.build_revoke(chat_jid, self._link.own_account(), message_id, with_go=True)
            client.send_message(chat_jid, message)

        await self._call("revoke message", revoke)

    async def delete_for_me(self, chat: str, message_id: str, *, from_me: bool, sender: str | None) -> None:
        message_checks.check_delete_for_me(chat, message_id, from_me=from_me, sender=sender)
        raise unsupported("delete_for_me")

    async def request_history_sync(self, chat: str, count: int, oldest: MessageRef) -> None:
        message_checks.check_history_sync(chat, count, oldest)
        raise unsupported("request_history_sync")
