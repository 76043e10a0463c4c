"""The session host's durable send dispatcher (issue 10).

* :mod:`.store`: the outbox as the dispatcher uses it (async, on the host's AWS threads).
* :mod:`.network_calls`: the network call of one send, by its kind (text, media, place, ...).
* :mod:`.sender`: one device's dispatcher, a task per tenure: pacing, typing, dispatch; and
  the dispatchers of the devices this host runs, started and stopped with their tenures.
"""

from session_host.sending.sender import DeviceSender, Dispatched, Senders
from session_host.sending.store import HostOutbox, OutboxStore

__all__ = ["DeviceSender", "Dispatched", "HostOutbox", "OutboxStore", "Senders"]
