"""``python -m session_host``: run the session host with the configured network adapter."""

from session_host.runtime import main

main()
