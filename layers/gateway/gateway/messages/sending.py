"""POST /send/*: put the message in the device's outbox and hold the request for its dispatch.

Every kind (text, media, location, contact, template) takes the one path of :func:`send`,
with the content :mod:`.send_kinds` checked and shaped (kind, text, payload).

The send is written to the outbox (``outbox.store``) while the session host that runs the
device is told (``SEND_TEXT``, carrying the send whole and the device's
``min_send_interval_seconds``): the write is off the waiting path, and a host whose claim
comes first writes the item itself (``outbox.claim``). The request waits for the dispatch,
up to the hold limit (``SEND_HOLD_SECONDS``). Sent by then: 200 ``sent``. Later: 202
``scheduled``, and the host still sends it (``message.sent`` follows). No answer from the
host within the hold is a 202 too: the send is in the outbox, whichever host runs the device
next dispatches it. A 202 is only given once the outbox write has succeeded.

A send with ``send_at`` in the future (:mod:`.schedule`) is answered 202 at once: written to
the outbox first, then its command told to the host without a wait for its reply
(:func:`planned`; a planned status publish takes it too); the host's dispatcher sends it at
that time (``not_before``), with its pacing applied then, or whichever host runs the device
by then finds it in the outbox.

Once the send is on its way (written, its command sent), a failure is one of two kinds
(decisions, "Hostile conditions"). A clear refusal (:data:`CLEAR_REFUSALS`: the network
refused the send, which the host marked ``failed`` before any of it went out) is a plain
error: an ``Idempotency-Key`` keeps nothing, and a retry sends. Anything else (the network
did not answer in time, the host failed, an answer that did not come back whole, an error
of our own after the command left) is :class:`~gateway.web.idempotency.Unclear`, bound to
the send: the key stays bound to it, and a repeat answers its state now (:func:`state_now`).
"""

from __future__ import annotations

from concurrent.futures import Future
from functools import cache
from typing import Any, Protocol

from gateway import clock
from gateway.bus import BusTimeout, CommandName, Reply, contracts, get_bus
from gateway.bus.contracts.messages import SendingSettings, SendOutcome, SendTextArgs
from gateway.context_pool import ContextThreadPool
from gateway.devices.access import require_session
from gateway.devices.sending_policy import settings_of
from gateway.errors import ApiError, internal_error
from gateway.failures import table
from gateway.failures.codes import ErrorCode
from gateway.failures.kinds import NETWORK_REFUSALS, ErrorKind
from gateway.jids import PHONE_RULE, parse_chat
from gateway.media import store as media_store
from gateway.messages import outbox, schedule, send_kinds
from gateway.messages.outputs import TextScheduledResponse, TextSentResponse
from gateway.messages.receipts import require_fields
from gateway.messages.schemas import SendTextRequest
from gateway.messages.send_kinds import Message
from gateway.messages.sends import Send, SendState
from gateway.models import DeviceModel
from gateway.observability import logger
from gateway.timestamps import iso_utc
from gateway.web.error_docs import standard
from gateway.web.fields import is_blank
from gateway.web.idempotency import HEADER, StoredResponse, Unclear

CLEAR_REFUSALS = NETWORK_REFUSALS
"""The host's error kinds of a send the network refused: the host marked it ``failed``
before any of it went out (``SEND_FAILED`` and the 4xx/501 answers). Every other failure of
a send on its way leaves its outcome unclear, ``not_connected`` included: the outbox keeps
such a send, and it goes out when the device is back."""

SEND_ERRORS = (
    *table.command_errors(CommandName.SEND_TEXT),
    standard(400, ErrorCode.MISSING_REQUIRED_FIELDS, ErrorCode.INVALID_CHAT_JID),
    standard(409, ErrorCode.SEND_CANCELED),
)
"""What POST /send/* may answer after its device is found (a network failure of the send
is ``SEND_FAILED``, not the ``NETWORK_ERROR`` of other commands: ``gateway.failures.table``)."""


class Addressed(Protocol):
    """A send request: its recipient and how it goes out (the fields of ``schemas.SendOptions``)."""

    number: str | None
    delay: int
    typing_duration: int
    disable_presence: bool
    reply_to: str | None
    send_at: str | None


def send_text(device: DeviceModel, request: SendTextRequest, *, hold_seconds: float) -> StoredResponse:
    """POST /send/text: the text checked, then :func:`send`."""
    text = request.text or ""
    require_fields(number=(request.number or "").strip(), text="" if is_blank(text) else text)
    return send(device, request, send_kinds.text(text), hold_seconds=hold_seconds)


def send(device: DeviceModel, request: Addressed, message: Message, *, hold_seconds: float) -> StoredResponse:
    """Enqueue ``message`` and wait up to ``hold_seconds`` for its dispatch; 200 or 202.

    The one path of every kind of send. The input is checked first (400: the kind's fields
    by :mod:`.send_kinds`, then the chat), then the device's status on its record (503), so a
    refused request leaves nothing in the outbox, and stores no media.
    """
    chat = parse_chat(request.number)
    if chat is None:
        raise ApiError(
            400,
            ErrorCode.INVALID_CHAT_JID,
            f"number must be a phone number ({PHONE_RULE}), a user JID "
            "(<phone number>@s.whatsapp.net) or a group JID (<digits>@g.us)",
        )
    due = schedule.due_at(request.send_at)
    require_session(device)
    payload = message.payload
    media = send_kinds.late_checked(message)
    if media is not None and message.media is not None:  # inline media: stored now, named in the payload
        stored_media = media_store.put(
            device.tenant_id, device.device_id, media.data, media.mimetype, message.media.filename
        )
        payload = (payload or {}) | {"media_id": stored_media.media_id, "mimetype": stored_media.mimetype}
    send = outbox.new_send(
        device.tenant_id,
        device.device_id,
        chat_jid=chat.jid,
        text=message.text,
        delay_seconds=request.delay,
        typing_seconds=0 if request.disable_presence else request.typing_duration,
        disable_presence=request.disable_presence,
        kind=message.kind,
        payload=payload,
        reply_to=request.reply_to,
        send_at=due,
    )
    if due is not None:
        return planned(device, send, hold_seconds)
    stored = _writer().submit(outbox.store, send)
    try:
        reply = get_bus().request(contracts.SEND_TEXT, **_command(device, send, hold_seconds))
    except BusTimeout:
        _durable(stored, device, send)  # a 202 promises a durable send
        logger.info("send held to the limit without an answer", extra=_about(device, send))
        return _scheduled(send, iso_utc(max(send.not_before, clock.now())))
    except Exception as error:  # the command may have left, and the outbox write may land
        logger.exception("send command not confirmed", extra=_about(device, send))
        raise Unclear(internal_error(), _bound(send)) from error
    if reply.result is not None and reply.result.status == "sent":
        _settle(stored, device, send)  # sent: the host's claim wrote the item in any case
    elif not reply.ok and reply.error_kind in CLEAR_REFUSALS:
        _settle(stored, device, send)  # refused: the host's claim wrote it, and marked it failed
    else:
        # Scheduled, or unclear: the host holds the send in memory and may still send it,
        # so the outbox must have it (a failed write, after botocore's retries, is unclear too).
        _durable(stored, device, send)
    if not reply.ok:
        named = request.number if message.field == "number" else message.value
        failure = _failed(device, send, reply, {message.field: named})
        raise failure if reply.error_kind in CLEAR_REFUSALS else Unclear(failure, _bound(send))
    return _answer(device, send, reply.result)


def planned(device: DeviceModel, send: Send, hold_seconds: float) -> StoredResponse:
    """A send with ``send_at``: stored first (the 202 promises it), then its host told
    without waiting, so it is offered to the device's dispatcher ahead of its time. A command
    that does not leave costs nothing but timeliness: the host's poll of the outbox finds it."""
    try:
        outbox.store(send)
    except Exception as error:  # it may have landed: a repeat with the key looks it up
        logger.exception("outbox write of a planned send failed", extra=_about(device, send))
        raise Unclear(internal_error(), _bound(send)) from error
    try:
        get_bus().tell(contracts.SEND_TEXT, **_command(device, send, hold_seconds))
    except Exception:
        logger.exception("planned send stored, its host not told", extra=_about(device, send))
    logger.info("send planned", extra=_about(device, send))
    return _scheduled(send, iso_utc(send.not_before))


def state_now(device: DeviceModel, bound: dict[str, Any]) -> StoredResponse | None:
    """What the send a first request started (``bound``: its outbox key) is now, for a repeat
    with its ``Idempotency-Key``: 200 sent, 202 scheduled, or its failure (raised); None when
    the outbox does not have it (a write that never landed: the first answer stands)."""
    key = bound.get("send_key")
    send = outbox.get(device.tenant_id, device.device_id, key) if isinstance(key, str) else None
    if send is None:
        return None
    if send.state is SendState.SENT and send.network_message_id is not None:  # set on every sent item
        return _sent(send, send.network_message_id)
    if send.state is SendState.CANCELED:
        raise ApiError(
            409,
            ErrorCode.SEND_CANCELED,
            f"This {HEADER} is bound to a send that was canceled: use a new key to send again.",
        )
    if send.state is SendState.FAILED:
        kind = send.error_kind or ErrorKind.NETWORK
        reply: Reply[Any] = Reply(command_id="", ok=False, error_kind=kind, error_message=send.error)
        error = _failed(device, send, reply, {"number": send.chat_jid})
        message = f"{error.message}. This {HEADER} is bound to this failed send: use a new key to send again."
        raise ApiError(error.status, error.code, message, validation=error.validation)
    return _scheduled(send, iso_utc(max(send.not_before, clock.now())))


def _command(device: DeviceModel, send: Send, timeout: float) -> dict[str, Any]:
    """The ``SEND_TEXT`` of ``send`` for the device's host: it carries the send whole, and
    the device's interval and sending policy (so a change applies from the next send)."""
    args = SendTextArgs(
        send_key=send.send_key,
        send=send,
        min_send_interval_seconds=int(device.min_send_interval_seconds or 0),
        sending_policy=SendingSettings(**settings_of(device)),
    )
    return {
        "args": args,
        "tenant_id": device.tenant_id,
        "device_id": device.device_id,
        "host_queue_url": device.host_queue_url,
        "timeout": timeout,
    }


@cache
def _writer() -> ContextThreadPool:
    """The thread that writes a send to the outbox while its command travels (one per
    process: a Lambda environment serves one request at a time)."""
    return ContextThreadPool(max_workers=2, thread_name_prefix="outbox")


def _bound(send: Send) -> dict[str, Any]:
    """What an ``Idempotency-Key`` stays bound to: the send, by its outbox key."""
    return {"send_key": send.send_key}


def _durable(stored: Future[None], device: DeviceModel, send: Send) -> None:
    """Wait for the write of a send that may still go out; a failed one leaves it unclear
    (the host may send what it holds in memory)."""
    try:
        stored.result()
    except Exception as error:
        logger.exception("outbox write of a send on its way failed", extra=_about(device, send))
        raise Unclear(internal_error(), _bound(send)) from error


def _settle(stored: Future[None], device: DeviceModel, send: Send) -> None:
    """Wait for the write of a send that went out; its failure changes nothing for the caller
    (the host wrote the item when it claimed it), so it is only logged."""
    try:
        stored.result()
    except Exception:
        logger.exception("outbox write of a sent message failed", extra=_about(device, send))


def _answer(device: DeviceModel, send: Send, outcome: SendOutcome | None) -> StoredResponse:
    if outcome is None:  # the host's answer was out of the contract
        logger.error("session host answered a send without its outcome", extra=_about(device, send))
        raise Unclear(table.incomplete(CommandName.SEND_TEXT), _bound(send))
    if outcome.scheduled_for is not None and outcome.status == "scheduled":
        logger.info("message scheduled", extra=_about(device, send))
        return _scheduled(send, outcome.scheduled_for)
    if outcome.network_message_id is None:  # a sent outcome names the network's id
        logger.error("session host answered a send without the network's id", extra=_about(device, send))
        raise Unclear(table.incomplete(CommandName.SEND_TEXT), _bound(send))
    logger.info("message sent", extra=_about(device, send))
    return _sent(send, outcome.network_message_id)


def _sent(send: Send, network_message_id: str) -> StoredResponse:
    body = TextSentResponse(
        message_id=send.message_id, chat_jid=send.chat_jid, network_message_id=network_message_id
    )
    return StoredResponse(200, body.model_dump(mode="json"))


def _scheduled(send: Send, scheduled_for: str) -> StoredResponse:
    """202: the send goes out later; a repeat with its key looks it up again."""
    body = TextScheduledResponse(
        message_id=send.message_id, chat_jid=send.chat_jid, scheduled_for=scheduled_for
    )
    return StoredResponse(202, body.model_dump(mode="json"), _bound(send))


def _failed(device: DeviceModel, send: Send, reply: Reply[Any], field: dict[str, Any]) -> ApiError:
    """The send's failure as :mod:`gateway.failures.table` answers it (an ``invalid`` one
    names ``field``: the recipient, or the content the host refused)."""
    logger.info(
        "send failed",
        extra={**_about(device, send), "kind": reply.error_kind, "host_message": reply.error_message},
    )
    return table.failed(CommandName.SEND_TEXT, reply, device.status, field)


def _about(device: DeviceModel, send: Send) -> dict[str, str]:
    return {"device_id": device.device_id, "message_id": send.message_id}
