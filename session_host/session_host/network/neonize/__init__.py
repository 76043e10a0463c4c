"""The ``neonize`` network adapter: the real messaging network through neonize 0.5.2.

Import this package before configuring logging: importing neonize calls
``logging.basicConfig(level=INFO)`` on the root logger and starts a log-forwarding thread.

Modules: ``adapter`` (:class:`NeonizePort`, :class:`NeonizeSession`, threading model),
``handlers`` (what the Go side reports), ``teardown`` (ending sessions), ``operations``
(send, presence, receipts), ``mapping`` (which neonize event becomes which catalog event),
``events``, ``content``, ``groups``, ``calls``, ``privacy``, ``newsletters`` and ``history``
(payloads), ``catalog`` (which events exist here), ``clients`` (client lifetime and the
connect thread), ``locks`` (the process-wide gate), ``store`` (files per device), ``jids``
and ``errors`` (conversions).
"""

from .adapter import NeonizePort, NeonizeSession, NeonizeTimings
from .catalog import PRODUCED_EVENTS, UNAVAILABLE_EVENTS

__all__ = ["PRODUCED_EVENTS", "UNAVAILABLE_EVENTS", "NeonizePort", "NeonizeSession", "NeonizeTimings"]
