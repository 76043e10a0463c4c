"""Webhook delivery: events from the events queue to the devices' receivers, signed, logged.

``invocation.deliver_batch`` handles one SQS batch (each event attempted by ``service.deliver``,
concurrently); the Lambda handler and the local delivery worker run it. See docs/delivery.md.
"""
