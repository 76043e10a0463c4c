"""Media of sends and received messages: limits, type sniffing, URL fetching and storage in
the media bucket (docs/media.md)."""
