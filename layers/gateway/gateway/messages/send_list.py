"""GET /sends, GET /sends/{message_id} and DELETE /sends/{message_id}: a device's outbox as a
resource (``gateway.messages.outbox`` reads and writes it).

A send is named by the gateway's id (what POST /send/* answered) or, once sent, by the
network's. Cancel is one conditional write (``queued`` → ``canceled``), the counterpart of
the dispatcher's conditional claim (``queued`` → ``sending``): whichever lands first wins, so
a canceled send never goes out and a send being sent is never shown canceled. A send a host
has claimed (``sending``) or that went out is 409 ``ALREADY_SENT``; a failed or canceled one
is answered as it is (canceling it again changes nothing: 200 ``canceled`` for a canceled
one, 409 ``ALREADY_SENT`` for a failed one, which the network may have got).
"""

from __future__ import annotations

from gateway.errors import ApiError
from gateway.failures.codes import ErrorCode
from gateway.messages import outbox
from gateway.messages.outputs import SendView
from gateway.messages.sends import Send, SendState, ShownState, shown_state, stored_state
from gateway.models import DeviceModel
from gateway.pagination import Page, PageRequest
from gateway.timestamps import iso_utc


def list_sends(device: DeviceModel, paging: PageRequest, state: ShownState | None) -> Page[SendView]:
    """A page of the device's sends, newest first, of one state when ``state`` names one."""
    states = (stored_state(state),) if state is not None else ()
    return outbox.page(device.tenant_id, device.device_id, paging, states).map(view)


def get_send(device: DeviceModel, message_id: str) -> SendView:
    """The device's send named by either id; 404 ``MESSAGE_NOT_FOUND`` when it has none."""
    return view(_found(device, message_id))


def cancel_send(device: DeviceModel, message_id: str) -> str:
    """Cancel a send not yet claimed by a host; its gateway id. See the module for the answers."""
    send = _found(device, message_id)
    if send.state is SendState.QUEUED and outbox.cancel(send):
        return send.message_id
    now = outbox.get(device.tenant_id, device.device_id, send.send_key) or send
    if now.state is SendState.CANCELED:
        return now.message_id
    raise ApiError(
        409,
        ErrorCode.ALREADY_SENT,
        f"send {now.message_id} is {shown_state(now.state)}: only a scheduled send can be canceled",
    )


def view(send: Send) -> SendView:
    return SendView(
        message_id=send.message_id,
        chat_jid=send.chat_jid,
        kind=send.kind,
        state=shown_state(send.state),
        scheduled_for=iso_utc(send.not_before),
        sent_at=iso_utc(send.sent_at) if send.sent_at is not None else None,
        network_message_id=send.network_message_id,
        error=send.error,
    )


def _found(device: DeviceModel, message_id: str) -> Send:
    send = outbox.find(device.tenant_id, device.device_id, message_id)
    if send is None:
        raise ApiError(404, ErrorCode.MESSAGE_NOT_FOUND, "the device has no send by that id")
    return send
