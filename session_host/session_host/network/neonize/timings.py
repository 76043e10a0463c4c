"""The durations of the neonize adapter, in one record a port hands to each of its sessions."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.media.limits import RECEIVED_MEDIA_TIMEOUT_SECONDS


@dataclass(frozen=True)
class NeonizeTimings:
    """Durations (seconds) of the adapter; the defaults follow whatsmeow's own timers."""

    first_qr_ttl: float = 60.0  # lifetime of the first QR code
    next_qr_ttl: float = 20.0  # lifetime of each rotated QR code
    qr_timeout_grace: float = 15.0  # after the last QR expired, give up waiting for a scan
    first_qr_wait: float = 30.0  # pair_phone waits this long for the first QR
    # Longest exclusive hold of the gate while a connect starts: above the time the real
    # library takes to register a client, even with both cores saturated (the figures:
    # bench/README.md, "Figures the code's choices rest on"). The hold ends earlier when
    # connect() returns or the Go side answers; a silent dial holds it whole.
    start_hold: float = 0.1
    sink_timeout: float = 60.0  # how long the client thread waits for the sink per event
    stop_join: float = 15.0  # how long a background stop waits for connect() to return
    call_deadline: float = 60.0  # longest wait for any other library call (then TIMEOUT)
    unlink_deadline: float = 5.0  # logout's unlink request (logout answers promptly)
    media_deadline: float = RECEIVED_MEDIA_TIMEOUT_SECONDS  # a received media's download, at most
