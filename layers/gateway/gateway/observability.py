"""Powertools singletons, configured by the ``POWERTOOLS_*`` environment variables."""

import warnings

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger(service="gateway")
tracer = Tracer(service="gateway")
metrics = Metrics(namespace="MessagingGateway", service="gateway")

# Most requests add no metric; an empty flush is normal, not worth a warning per invocation.
warnings.filterwarnings("ignore", message="No application metrics to publish")
