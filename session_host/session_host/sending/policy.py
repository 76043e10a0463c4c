"""The sending policy as one tenure's dispatcher applies it (:class:`TenurePolicy`): the
device's settings and where it stands (today's usage, a pause), as last learnt; which of its
sends the policy holds, and until when; and what a send that went out, or that the network
refused for rate, changes.

The rules themselves are :mod:`gateway.devices.sending_policy`'s. A chat is new unless the
device wrote to or heard from it (:mod:`gateway.devices.known_chats`): looked up only while a
new-chat rule or a pause applies, once per chat and tenure, and recorded when a send to it
goes out (a message from it is recorded by the sink). Usage is counted in memory at once (the
next send's limits see it) and on the device's record after the send's caller has its answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from gateway import clock
from gateway.devices.sending_policy import DEFAULT_PAUSE_SECONDS, SendingPolicy, Usage, utc_day
from gateway.messages.sends import STATUS, Send
from gateway.observability import logger
from session_host.aws_calls import AWS_ERRORS
from session_host.device_tenure import OwnedDevice
from session_host.network import payloads
from session_host.network.port import NetworkError, NetworkEvent, RateLimit
from session_host.sending.store import OutboxStore

Publish = Callable[[NetworkEvent], Awaitable[None]]
"""Publishes an event of the device."""


class TenurePolicy:
    """One tenure's view of its device's sending policy (see the module)."""

    def __init__(self, owned: OwnedDevice, store: OutboxStore, publish: Publish) -> None:
        self.owned = owned
        self._store = store
        self._publish = publish
        self.policy = SendingPolicy()  # the settings and where they stand, as last learnt
        self._new_chats: set[str] = set()  # chats looked up and not known (yet)

    def apply(self, settings: object) -> None:
        """The settings a command brought (``SendingSettings``): from the next dispatch."""
        self.policy = self.policy.with_settings(settings)

    def learnt(self, policy: SendingPolicy) -> None:
        """The policy as the device's record has it now, keeping what this tenure knows
        better: its own pause, and the counts of sends still being recorded."""
        mine = self.policy
        self.policy = replace(
            policy,
            paused_until=max(policy.paused_until or 0.0, mine.paused_until or 0.0) or None,
            usage=policy.usage.merged(mine.usage),
        )

    @property
    def jitter_seconds(self) -> int:
        return self.policy.send_jitter_seconds

    def holds_any(self, now: float) -> bool:
        """Whether any send may have to wait now (else no rule need be looked at)."""
        return self.policy.holds_any(now)

    async def held_until(self, send: Send, now: float) -> float | None:
        """Until when the policy holds ``send`` (None: it may go); a status publish is no
        message to a chat and is never held."""
        if send.kind == STATUS:
            return None
        new_chat = self.policy.watches_new_chats(now) and await self._is_new(send.chat_jid)
        return self.policy.hold(now, new_chat=new_chat)

    async def _is_new(self, chat_jid: str) -> bool:
        """Whether the device never wrote to or heard from the chat (one lookup per tenure)."""
        owned = self.owned
        if chat_jid in owned.known_chats:
            return False
        if chat_jid not in self._new_chats:
            if await self._store.chat_known(owned.tenant_id, owned.device_id, chat_jid):
                owned.known_chats.add(chat_jid)
                return False
            self._new_chats.add(chat_jid)
        return chat_jid not in owned.known_chats  # heard from meanwhile

    def count(self, send: Send, at: float) -> bool | None:
        """Count a send that went out in today's usage (in memory, at once: the next send's
        limits see it); whether its chat was new, when known now (else :meth:`record` learns it)."""
        if send.kind == STATUS:
            return False
        chat = send.chat_jid
        new_chat: bool | None = None
        if chat in self.owned.known_chats:
            new_chat = False
        elif chat in self._new_chats:
            new_chat = True
            self._new_chats.discard(chat)
        self.policy = replace(
            self.policy, usage=self.policy.usage.on(utc_day(at)).counted(new_chat=bool(new_chat))
        )
        return new_chat

    async def record(self, send: Send, day: str, new_chat: bool | None) -> None:
        """Record the send's chat as known and count it on the device's record (best effort:
        a count lost to an outage only shows less)."""
        if send.kind == STATUS:
            return
        owned = self.owned
        chat = send.chat_jid
        try:
            if new_chat is not False:
                created = await self._store.remember_chat(owned.tenant_id, owned.device_id, chat)
                if new_chat is None and created:  # a new chat, learnt now
                    usage = self.policy.usage
                    if usage.day == day:
                        self.policy = replace(self.policy, usage=Usage(day, usage.sent, usage.new_chats + 1))
                new_chat = bool(new_chat) or created
                owned.known_chats.add(chat)
            await self._store.count_send(owned.tenant_id, owned.device_id, day, new_chat=new_chat)
        except AWS_ERRORS as error:
            logger.warning("a send was not counted in the device's usage", extra=self._about(str(error)))

    async def pause(self, error: NetworkError) -> float:
        """The network refused a send for rate: pause the device's new-chat sends until its
        time (or :data:`DEFAULT_PAUSE_SECONDS`), on its record, and announce it
        (``device.send_limited``); until when they pause."""
        now = clock.now()
        until = max(error.retry_at if error.retry_at is not None else now + DEFAULT_PAUSE_SECONDS, now)
        until = max(until, self.policy.paused_until or 0.0)
        self.policy = replace(self.policy, paused_until=until)
        owned = self.owned
        reason = error.rate_limit or RateLimit.OVERLIMIT
        logger.warning(
            "sends to new chats paused: the network refused a send for rate",
            extra=self._about(f"{reason}: {error}") | {"until": payloads.iso_utc(until)},
        )
        try:
            await self._store.pause_new_chats(owned.tenant_id, owned.device_id, until)
        except AWS_ERRORS as failure:
            logger.error("the pause of new-chat sends was not recorded", extra=self._about(str(failure)))
        await self._publish(payloads.send_limited(owned.device_id, reason=reason.value, until=until))
        return until

    def _about(self, error: str) -> dict[str, str]:
        return {"device_id": self.owned.device_id, "tenant_id": self.owned.tenant_id, "error": error}
