"""Device commands on the session host: one handler per command, in the module of its area.

* :mod:`.registry`: which handler serves which command (:func:`~.registry.handles`), the
  executor that runs a command with its handler (it never names a command), and what handlers
  share (replies, forwarding, taking and ending a device).
* :mod:`.sessions`, :mod:`.messages`, :mod:`.message_ops`, :mod:`.sending`, :mod:`.groups`,
  :mod:`.status`, :mod:`.profile`, :mod:`.contacts`, :mod:`.calls`: the handlers. A new area is
  a new module, imported below so its handlers register.
"""

from session_host.commands import (
    calls,
    contacts,
    groups,
    message_ops,
    messages,
    profile,
    sending,
    sessions,
    status,
)
from session_host.commands.registry import CommandExecutor, Forward, Later, Outcome

__all__ = [
    "CommandExecutor",
    "Forward",
    "Later",
    "Outcome",
    "calls",
    "contacts",
    "groups",
    "message_ops",
    "messages",
    "profile",
    "sending",
    "sessions",
    "status",
]
