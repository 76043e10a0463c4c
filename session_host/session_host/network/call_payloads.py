"""The ``data`` payloads of the ``call.*`` events both network adapters produce.

Apart from :mod:`.payloads` because calls are their own family: every call event shares the
fields :func:`call_event` sets, and the neonize adapter builds several kinds (accept, reject,
relay...) on that one function. The fields are documented in ``docs/events.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from gateway.webhooks.catalog import EventName

from .payloads import iso_utc_or_none
from .port import NetworkEvent


def call_event(
    name: EventName,
    *,
    call_id: str,
    sender: str | None,
    creator: str | None,
    at: float | None,
    extra: Mapping[str, Any] | None = None,
) -> NetworkEvent:
    """A ``call.*`` event: the fields every call event has, then the event's own (``extra``)."""
    data: dict[str, Any] = {
        "call_id": call_id,
        "from": sender,
        "creator": creator,
        "timestamp": iso_utc_or_none(at),
    }
    data.update(extra or {})
    return NetworkEvent(name=name, data=data)


def call_offer(
    *,
    call_id: str,
    sender: str | None,
    creator: str | None,
    at: float | None,
    is_video: bool,
    is_group: bool,
    remote_platform: str | None,
    remote_version: str | None,
) -> NetworkEvent:
    """Someone calls the device's account (``is_group``: a group call the account is invited to)."""
    extra = {
        "is_video": is_video,
        "is_group": is_group,
        "remote_platform": remote_platform or None,
        "remote_version": remote_version or None,
    }
    return call_event(
        EventName.CALL_OFFER, call_id=call_id, sender=sender, creator=creator, at=at, extra=extra
    )


def call_terminate(
    *, call_id: str, sender: str | None, creator: str | None, at: float | None, reason: str | None
) -> NetworkEvent:
    """The call ended (hung up, not answered in time, answered elsewhere)."""
    extra = {"reason": reason or None}
    return call_event(
        EventName.CALL_TERMINATE, call_id=call_id, sender=sender, creator=creator, at=at, extra=extra
    )


class RejectedBy(StrEnum):
    """Who decided a rejection the device made: a client through the API, or the device's
    ``reject_calls`` setting."""

    API = "api"
    AUTO = "auto"


def call_reject(
    *,
    call_id: str,
    device_jid: str | None,
    caller: str,
    at: float,
    by: RejectedBy,
    reply_message_id: str | None = None,
) -> NetworkEvent:
    """The device's account declined a call (the session host emits it once the network took
    the rejection): ``from`` is the account that sent the reject, ``creator`` the caller;
    ``reply_message_id`` the network's id of the text the caller got, if any."""
    extra = {"by": by.value, "reply_message_id": reply_message_id}
    return call_event(
        EventName.CALL_REJECT, call_id=call_id, sender=device_jid, creator=caller, at=at, extra=extra
    )
