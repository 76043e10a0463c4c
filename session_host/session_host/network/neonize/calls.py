"""neonize's call signalling → ``call.*`` events (common fields from :mod:`..call_payloads`).

whatsmeow reports each call node it receives: an offer (a one-to-one call; a group call the
account is invited to may come as an offer *notice*), pre-accept and accept (the call was
answered, by the other person or by another device of the account), transport and relay
latency (media negotiation), terminate, and nodes it does not know. ``from`` is who sent
that node, ``creator`` who started the call; both prefer the phone JID to a LID. neonize
0.5.2 has no reject event: its Go bridge does not forward whatsmeow's ``CallReject``.
"""

from __future__ import annotations

from typing import Any

from neonize.proto.Neonize_pb2 import (
    JID,
    BasicCallMeta,
    CallAccept,
    CallOffer,
    CallOfferNotice,
    CallPreAccept,
    CallRelayLatency,
    CallRemoteMeta,
    CallTerminate,
    CallTransport,
    Node,
    UnknownCallEvent,
)

from gateway.webhooks.catalog import EventName

from .. import call_payloads
from ..port import NetworkEvent
from .events import EventContext
from .jids import is_lid, jid_str, prefer_phone


def _common(meta: BasicCallMeta) -> dict[str, Any]:
    creator = prefer_phone(meta.callCreator, meta.callCreatorAlt)
    sender: JID = getattr(meta, "from")  # a Python keyword as a protobuf field
    if is_lid(sender) and sender.User == meta.callCreator.User:
        sender = creator
    return {
        "call_id": meta.callID,
        "sender": jid_str(sender),
        "creator": jid_str(creator),
        "at": meta.timestamp,
    }


def _remote(meta: CallRemoteMeta) -> dict[str, Any]:
    return {"remote_platform": meta.remotePlatform or None, "remote_version": meta.remoteVersion or None}


def _attr(node: Node, name: str) -> str | None:
    """A node attribute as text (JIDs as ``user@server``); None when absent."""
    for attr in node.Attrs:
        if attr.name != name:
            continue
        kind = attr.WhichOneof("Value")
        if kind == "jid":
            return jid_str(attr.jid)
        return None if kind is None else str(getattr(attr, kind))
    return None


def call_offer(_ctx: EventContext, ev: CallOffer) -> NetworkEvent:
    group_jid = _attr(ev.data, "group-jid")
    return call_payloads.call_offer(
        **_common(ev.basicCallMeta),
        is_video=any(child.Tag == "video" for child in ev.data.Nodes),
        is_group=group_jid is not None,
        **_remote(ev.callRemoteMeta),
    )


def call_offer_notice(_ctx: EventContext, ev: CallOfferNotice) -> NetworkEvent:
    """The notice of a call (group calls): ``call.offer`` without the remote's platform."""
    return call_payloads.call_offer(
        **_common(ev.basicCallMeta),
        is_video=ev.media == "video",
        is_group=ev.type == "group" or _attr(ev.data, "group-jid") is not None,
        remote_platform=None,
        remote_version=None,
    )


def call_accept(_ctx: EventContext, ev: CallAccept) -> NetworkEvent:
    common = _common(ev.basicCallMeta)
    return call_payloads.call_event(EventName.CALL_ACCEPT, **common, extra=_remote(ev.callRemoteMeta))


def call_pre_accept(_ctx: EventContext, ev: CallPreAccept) -> NetworkEvent:
    common = _common(ev.basicCallMeta)
    return call_payloads.call_event(EventName.CALL_PRE_ACCEPT, **common, extra=_remote(ev.callRemoteMeta))


def call_transport(_ctx: EventContext, ev: CallTransport) -> NetworkEvent:
    common = _common(ev.basicCallMeta)
    return call_payloads.call_event(EventName.CALL_TRANSPORT, **common, extra=_remote(ev.callRemoteMeta))


def call_relay_latency(_ctx: EventContext, ev: CallRelayLatency) -> NetworkEvent:
    return call_payloads.call_event(EventName.CALL_RELAY_LATENCY, **_common(ev.basicCallMeta))


def call_terminate(_ctx: EventContext, ev: CallTerminate) -> NetworkEvent:
    return call_payloads.call_terminate(**_common(ev.basicCallMeta), reason=ev.reason)


def call_unknown(_ctx: EventContext, ev: UnknownCallEvent) -> NetworkEvent:
    """A call node whatsmeow does not know: the ``<call>`` node around one unknown child."""
    call = ev.node
    child = call.Nodes[0] if call.Nodes else Node()
    at = _attr(call, "t")
    return call_payloads.call_event(
        EventName.CALL_UNKNOWN,
        call_id=_attr(child, "call-id") or "",
        sender=_attr(call, "from"),
        creator=_attr(child, "call-creator"),
        at=float(at) if at and at.isascii() and at.isdigit() else None,
        extra={"tag": child.Tag or None},
    )
