"""Webhook delivery: one event from the events queue to the device's receiver, signed, logged.

``service.deliver_record`` handles one SQS record; the Lambda handler and the local delivery
worker run it for every record of a batch, concurrently. See docs/delivery.md.
"""
