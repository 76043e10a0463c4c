"""Powertools singletons, configured by the ``POWERTOOLS_*`` environment variables."""

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger(service="gateway")
tracer = Tracer(service="gateway")
metrics = Metrics(namespace="MessagingGateway", service="gateway")
