"""JIDs and timestamps between the port (strings) and neonize (``JID`` protobufs).

The string rules (which JIDs exist, how one is written) are :mod:`gateway.jids`; this module
only converts between those strings and neonize's protobufs. JIDs leave the adapter as
``user@server`` strings without agent or device part (``12025550123@s.whatsapp.net``,
``120363000000000000@g.us``). When the network names a person by a LID (``<opaque>@lid``)
and also gives the phone JID (``SenderAlt`` / ``RecipientAlt``), the phone JID wins, so
receivers see the same address they send to.
"""

from __future__ import annotations

from typing import Any

from neonize.proto.Neonize_pb2 import JID, MessageSource
from neonize.utils.jid import build_jid

from gateway.failures.kinds import ErrorKind
from gateway.jids import LID_SERVER, Jid
from gateway.jids import parse_jid as parse_jid_text

from ..payloads import iso_utc_or_none
from ..port import NetworkError

_JID_FIELDS = ("User", "RawAgent", "Device", "Integrator", "Server")


def jid_str(jid: JID | None) -> str | None:
    """``user@server`` of a JID (agent and device dropped); None for an empty JID."""
    if jid is None or not jid.Server:
        return None
    return Jid(jid.User, jid.Server).bare


def full_jid_str(jid: JID) -> str:
    """The JID with its device part, as whatsmeow stores it (``user[.agent]:device@server``)."""
    return str(Jid(jid.User, jid.Server, jid.RawAgent, jid.Device))


def is_lid(jid: JID) -> bool:
    server: str = jid.Server
    return server == LID_SERVER


def prefer_phone(primary: JID, alternative: JID) -> JID:
    """``alternative`` when ``primary`` is a LID and ``alternative`` is a real address."""
    if is_lid(primary) and alternative.User and alternative.Server and not is_lid(alternative):
        return alternative
    return primary


def sender_of(source: MessageSource) -> str | None:
    """The sender of a message or receipt, as a phone JID whenever the network gave one."""
    return jid_str(prefer_phone(source.Sender, source.SenderAlt))


def chat_of(source: MessageSource) -> str | None:
    """The chat of a message or receipt; a one-to-one chat named by a LID becomes the phone JID."""
    if source.IsGroup or not is_lid(source.Chat):
        return jid_str(source.Chat)
    alternative = source.RecipientAlt if source.IsFromMe else source.SenderAlt
    return jid_str(prefer_phone(source.Chat, alternative))


def parse_jid(value: str) -> JID:
    """A JID protobuf from phone digits or a ``user[.agent][:device]@server`` string.

    Raises
    ------
    NetworkError
        ``INVALID`` when :func:`gateway.jids.parse_jid` refuses the value.
    """
    parsed = parse_jid_text(value)
    if parsed is None:
        raise NetworkError(ErrorKind.INVALID, f"not a phone number or JID: {value!r}")
    jid = build_jid(parsed.user, parsed.server)
    jid.RawAgent, jid.Device = parsed.agent, parsed.device
    return jid


def jid_to_dict(jid: JID) -> dict[str, Any]:
    """JSON-safe form of a JID, enough to rebuild it exactly (see :func:`jid_from_dict`)."""
    return {name: getattr(jid, name) for name in _JID_FIELDS}


def jid_from_dict(data: dict[str, Any]) -> JID:
    """Rebuild a JID stored by :func:`jid_to_dict`."""
    if not data.get("User") or not data.get("Server"):
        raise ValueError("stored JID has no user or server")
    return JID(
        User=str(data["User"]),
        RawAgent=int(data.get("RawAgent", 0)),
        Device=int(data.get("Device", 0)),
        Integrator=int(data.get("Integrator", 0)),
        Server=str(data["Server"]),
        IsEmpty=False,
    )


def iso_from_millis(epoch_millis: int) -> str | None:
    """ISO 8601 UTC of a millisecond timestamp (``MessageInfo.Timestamp`` is one); None for
    Go's zero time or no time at all."""
    return iso_utc_or_none(epoch_millis / 1000)
