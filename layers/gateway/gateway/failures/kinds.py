"""Why a device command failed: the one error-kind enum of the network port, the session
host and the API.

The network port's adapters raise ``NetworkError`` with a kind; the session host replies
with it (and, for ``REFUSED``, the group code that names the refusal); the API answers it
through :mod:`gateway.failures.table`. Everything compares members of :class:`ErrorKind`,
never their strings.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorKind(StrEnum):
    """Why a command failed. The first group is the network's (raised by the port's
    adapters), the second the session host's own."""

    NETWORK = "network"  # the network call failed
    TIMEOUT = "timeout"  # no answer in time
    RATE_LIMITED = "rate_limited"  # the network throttled the operation
    NOT_CONNECTED = "not_connected"  # the session is not connected or not logged in
    ALREADY_LOGGED_IN = "already_logged_in"  # pairing asked of a paired session
    INVALID = "invalid"  # the network refused the input (bad phone, bad JID)
    NOT_FOUND = "not_found"  # the target does not exist on the network
    UNSUPPORTED = "unsupported"  # the adapter cannot do this (documented per adapter)
    REFUSED = "refused"  # the network refused for a reason a group code names
    EXPIRED = "expired"  # the network's window for this has passed (delete for everyone)

    NOT_RUNNING = "not_running"  # no session runs the device on the host
    HOST_ERROR = "host_error"  # the host failed (the text may describe internals)
    CONFLICT = "conflict"  # the command does not apply to the device's state (reconnect)
    HOST_FULL = "host_full"  # the host runs as many sessions as it may (MAX_SESSIONS)

    @classmethod
    def read(cls, value: str) -> ErrorKind:
        """The kind ``value`` names; one this code does not know (a newer host's) is a
        ``HOST_ERROR``, answered as the host failing rather than as a crash."""
        try:
            return cls(value)
        except ValueError:
            return cls.HOST_ERROR


NETWORK_REFUSALS = frozenset(
    {ErrorKind.NETWORK, ErrorKind.INVALID, ErrorKind.NOT_FOUND, ErrorKind.RATE_LIMITED, ErrorKind.UNSUPPORTED}
)
"""Kinds of an operation the network (or the adapter) refused before any of it went out: an
outcome as clear as an input error. A ``TIMEOUT``, a ``HOST_ERROR`` and any kind not named
here leave the outcome unclear (decisions, "Hostile conditions")."""

NOT_STARTED = frozenset({ErrorKind.NOT_RUNNING, ErrorKind.NOT_CONNECTED, ErrorKind.HOST_FULL})
"""Kinds of a command no session started: nothing of it reached the network."""
