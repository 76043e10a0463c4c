"""PynamoDB models, one table each, named by the configuration.

The endpoint is not configured here: boto's standard ``AWS_ENDPOINT_URL`` variable points
the models at a local moto server, so the same code runs locally and on AWS.
"""

from gateway.models.accounts import TenantModel, TokenModel, UniqueKeyModel, UserModel
from gateway.models.chats import KnownChatModel
from gateway.models.devices import DeviceModel
from gateway.models.leases import HostTenureModel, LeaseModel
from gateway.models.sends import SendModel
from gateway.models.webhooks import DeliveryModel, WebhookModel

__all__ = [
    "DeliveryModel",
    "DeviceModel",
    "HostTenureModel",
    "KnownChatModel",
    "LeaseModel",
    "SendModel",
    "TenantModel",
    "TokenModel",
    "UniqueKeyModel",
    "UserModel",
    "WebhookModel",
]
