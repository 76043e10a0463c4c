"""The simulated network's rules for what changes a message already in a chat: reactions,
edits and poll votes, by a gateway's device or by a phone (votes: by a phone). Called with the
network's lock held.

A reaction names a message its account has in the chat (one it sent, or one it received
there from ``author``); an edit names a text its account sent there, within the network's
edit window (``SIMULATOR_EDIT_WINDOW_SECONDS``). Both reach the chat's other people: a
person's chat, or the group's other members. Their phones record them (the inbox's
``reactions``, and an edited message's new text with ``edited``); their devices get
``message.reaction`` / ``message.edited``, queued while offline like messages. The
account's own devices get nothing, as for its sends.
"""

from __future__ import annotations

import time
from typing import Any

from gateway import jids
from gateway.failures.codes import ErrorCode
from gateway.failures.kinds import ErrorKind

from .. import payloads
from ..payloads import iso_utc
from ..port import NetworkError, NetworkEvent
from . import events
from .model import Account, ControlError
from .world import World


def react(
    world: World,
    reactor: Account,
    chat_jid: str,
    message_id: str,
    emoji: str,
    *,
    author: str | None,
) -> None:
    """``reactor`` reacts with ``emoji`` (empty: takes its reaction back) to a message of
    ``chat_jid`` sent by ``author`` (a user JID; None: whoever sent it); ``NOT_FOUND`` when it
    has no such message there."""
    if _message(reactor, chat_jid, message_id, author) is None:
        raise NetworkError(ErrorKind.NOT_FOUND, f"{reactor.jid} has no message {message_id} in {chat_jid}")
    now, chat = time.time(), _as_others_see_it(reactor, chat_jid)
    event = payloads.message_reaction(
        message_id=message_id,
        chat_jid=chat,
        sender=reactor.jid,
        emoji=emoji,
        is_from_me=False,
        timestamp=now,
    )
    for recipient in _others(world, reactor, chat_jid):
        kept = [
            entry
            for entry in recipient.reactions
            if (entry["message_id"], entry["from"]) != (message_id, reactor.jid)
        ]
        if emoji:
            kept.append(
                {
                    "message_id": message_id,
                    "chat": chat,
                    "from": reactor.jid,
                    "emoji": emoji,
                    "at": iso_utc(now),
                }
            )
        recipient.reactions = kept
        _tell(world, recipient, event)


def edit(
    world: World,
    editor: Account,
    chat_jid: str,
    message_id: str,
    text: str,
    *,
    window: float,
) -> None:
    """``editor`` gives a text it sent in ``chat_jid`` the new ``text``: ``NOT_FOUND`` when it
    sent no such text there (or revoked it), ``EXPIRED`` past ``window`` seconds from sending."""
    sent = editor.sent_message(chat_jid, message_id)
    if sent is None or sent.get("type", "text") != "text":
        raise NetworkError(ErrorKind.NOT_FOUND, f"{editor.jid} sent no text {message_id} to {chat_jid}")
    now = time.time()
    if now - float(sent.get("timestamp") or 0.0) > window:
        raise NetworkError(ErrorKind.EXPIRED, "the network's window to edit this message has passed")
    sent["text"], sent["edited_at"] = text, now
    event = payloads.message_edited(
        message_id=message_id,
        chat_jid=_as_others_see_it(editor, chat_jid),
        sender=editor.jid,
        content=text,
        is_from_me=False,
        edited_at=now,
    )
    for recipient in _others(world, editor, chat_jid):
        for message in recipient.inbox:
            if message["message_id"] == message_id and message["from"] == editor.jid:
                message.update({"text": text, "edited": True, "edited_at": iso_utc(now)})
        _tell(world, recipient, event)


def vote(world: World, voter: Account, chat_jid: str, poll_id: str, options: list[str]) -> list[str]:
    """``voter`` votes on the poll ``poll_id`` it received in ``chat_jid``: its choice
    replaces its last one (none: the vote is taken back). Every copy of the poll shows the
    votes; the other people of the chat get ``poll.vote`` on their devices (the poll's
    author included). Returns the options chosen, in the poll's order.

    Raises
    ------
    ControlError
        404 ``MESSAGE_NOT_FOUND`` when the voter has no such poll in that chat; 400
        ``VALIDATION_ERROR`` for an option the poll does not have, or several on a poll
        that takes one.
    """
    poll = next(
        (
            m
            for m in voter.inbox
            if m["message_id"] == poll_id and m.get("chat", m["from"]) == chat_jid and m["type"] == "poll"
        ),
        None,
    )
    if poll is None:
        raise ControlError(404, ErrorCode.MESSAGE_NOT_FOUND, f"no poll {poll_id} in the chat {chat_jid}")
    shown = poll["poll"]
    unknown = [option for option in options if option not in shown["options"]]
    if unknown:
        raise ControlError(400, ErrorCode.VALIDATION_ERROR, f"the poll has no option {unknown[0]!r}")
    if len(set(options)) > 1 and not shown["multiple_answers"]:
        raise ControlError(400, ErrorCode.VALIDATION_ERROR, "this poll takes one option")
    chosen = [option for option in shown["options"] if option in options]
    told = _others(world, voter, chat_jid)
    for account in [voter, *told]:
        _record_vote(account, poll_id, voter.jid, chosen)
    event = events.poll_vote(poll_id, _as_others_see_it(voter, chat_jid), voter.jid, chosen, time.time())
    for account in told:
        _tell(world, account, event)
    return chosen


def _record_vote(account: Account, poll_id: str, voter: str, chosen: list[str]) -> None:
    """The account's copies of the poll (received, or its own send) show the new vote."""
    for entry in [*account.inbox, *account.sent]:
        if entry["message_id"] == poll_id and entry.get("type") == "poll":
            shown = entry.get("poll") or {}
            entry["poll"] = {**shown, "votes": {**shown.get("votes", {}), voter: chosen}}


def _message(account: Account, chat_jid: str, message_id: str, author: str | None) -> dict[str, Any] | None:
    """The account's message of the chat: sent by it (``author`` its own JID or None), or
    received there from ``author`` (or anyone, when None)."""
    if author in (None, account.jid) and (sent := account.sent_message(chat_jid, message_id)) is not None:
        return sent
    for message in account.inbox:
        if (
            message["message_id"] == message_id
            and message.get("chat", message["from"]) == chat_jid
            and author in (None, message["from"])
            and not message.get("revoked")
        ):
            return message
    return None


def _as_others_see_it(account: Account, chat_jid: str) -> str:
    """The chat as its other people name it: the group, or the account in a one-to-one chat."""
    return chat_jid if jids.is_group_jid(chat_jid) else account.jid


def _others(world: World, account: Account, chat_jid: str) -> list[Account]:
    """The chat's other people who are on the network: the person, or the group's members."""
    if jids.is_group_jid(chat_jid):
        members = world.groups.get(chat_jid).participants
        people = [world.person(jid) for jid in members]
    else:
        people = [chat_jid]
    others = [world.account_of_jid(jid) for jid in people if jid is not None and jid != account.jid]
    return [other for other in others if other is not None]


def _tell(world: World, recipient: Account, event: NetworkEvent) -> None:
    for link in world.links_of(recipient.jid):
        world.push(link.device_key, event)
