"""Webhooks: the event catalog, configurations, signing and the delivery log."""
