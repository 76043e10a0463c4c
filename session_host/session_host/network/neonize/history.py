"""neonize's history sync → ``history.sync``: what a chunk holds, not the history itself.

After pairing, the phone sends the chat history in chunks (a full sync can be many
megabytes); each chunk becomes one ``history.sync`` that counts what it carries. The
messages are not copied into the webhook payload: an event must stay far below the
events queue's 256 KB message limit.
"""

from __future__ import annotations

from neonize.proto.Neonize_pb2 import HistorySync as HistorySyncEv

from gateway.webhooks.catalog import EventName

from ..port import NetworkEvent
from .events import EventContext, enum_name


def history_sync(ctx: EventContext, ev: HistorySyncEv) -> NetworkEvent:
    chunk = ev.Data
    data = {
        "device_id": ctx.device_id,
        "sync_type": enum_name(chunk, "syncType"),
        "chunk_order": chunk.chunkOrder if chunk.HasField("chunkOrder") else None,
        "progress": chunk.progress if chunk.HasField("progress") else None,
        "conversation_count": len(chunk.conversations),
        "message_count": sum(len(conversation.messages) for conversation in chunk.conversations),
        "push_name_count": len(chunk.pushnames),
        "status_count": len(chunk.statusV3Messages),
    }
    return NetworkEvent(name=EventName.HISTORY_SYNC, data=data)
