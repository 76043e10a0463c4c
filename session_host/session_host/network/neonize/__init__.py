"""The ``neonize`` network adapter: the real messaging network through neonize 0.5.2.

Importing neonize calls ``logging.basicConfig(level=INFO)`` on the root logger and starts a
log-forwarding thread; the host configures logging first
(:func:`gateway.observability.configure_logging`), so that call adds no handler of its own.

Modules: ``adapter`` (:class:`NeonizePort`), ``session`` (:class:`NeonizeSession`: the
lifecycle, threading model), ``link`` (the state its collaborators share and the gated call
of every operation), ``handlers`` (what the Go side reports, and its events' way to the
loop); one per operation family of the port: ``send_ops``, ``message_ops``, ``group_ops``,
``status_ops``; ``media`` (media messages built and received, downloads in ``downloads``),
``mapping`` (which neonize event becomes which catalog event), ``events``, ``content``,
``groups``, ``calls``, ``privacy``, ``newsletters`` and ``history`` (payloads), ``catalog``
(which events exist here, which operations do not), ``clients`` (client lifetime and the
connect thread), ``locks`` (the process-wide gate), ``store`` (files per device),
``timings``, ``jids`` and ``group_convert`` (conversions).
"""

from .adapter import NeonizePort
from .catalog import PRODUCED_EVENTS, UNAVAILABLE_EVENTS
from .session import NeonizeSession
from .timings import NeonizeTimings

__all__ = ["PRODUCED_EVENTS", "UNAVAILABLE_EVENTS", "NeonizePort", "NeonizeSession", "NeonizeTimings"]
