"""The standard envelope's ``error_code`` values: one enum, so a code is written once.

The specification fixes the first group ("Codes (standard envelope)"); the rest are this
gateway's, each documented where it is answered (``docs/errors.md``). Clients branch on
these, so a value never changes once published. The lowercase codes of the group and
status-privacy operations are :mod:`gateway.groups.codes`'.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """An ``error_code`` of the standard envelope."""

    # The specification's.
    VALIDATION_ERROR = "VALIDATION_ERROR"
    INVALID_JSON = "INVALID_JSON"
    INVALID_REQUEST_FORMAT = "INVALID_REQUEST_FORMAT"
    MISSING_REQUIRED_FIELDS = "MISSING_REQUIRED_FIELDS"
    INVALID_CHAT_JID = "INVALID_CHAT_JID"
    DEVICE_NOT_READY = "DEVICE_NOT_READY"
    DEVICE_DISCONNECTED = "DEVICE_DISCONNECTED"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    DEVICE_ERROR = "DEVICE_ERROR"
    SEND_FAILED = "SEND_FAILED"
    SYNC_REQUEST_FAILED = "SYNC_REQUEST_FAILED"
    MESSAGE_NOT_FOUND = "MESSAGE_NOT_FOUND"
    DELETE_FAILED = "DELETE_FAILED"
    DELETE_TIME_EXPIRED = "DELETE_TIME_EXPIRED"
    # Reactions and edits.
    EDIT_TIME_EXPIRED = "EDIT_TIME_EXPIRED"

    # Requests and the web layer.
    INTERNAL_ERROR = "INTERNAL_ERROR"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    HEADERS_TOO_LARGE = "HEADERS_TOO_LARGE"
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"
    GATEWAY_TIMEOUT = "GATEWAY_TIMEOUT"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    BAD_REQUEST = "BAD_REQUEST"  # another 4xx the web framework raised
    NOT_FOUND = "NOT_FOUND"
    CONFLICT = "CONFLICT"
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
    IDEMPOTENCY_KEY_IN_PROGRESS = "IDEMPOTENCY_KEY_IN_PROGRESS"

    # Accounts.
    TENANT_EXISTS = "TENANT_EXISTS"
    TENANT_NOT_FOUND = "TENANT_NOT_FOUND"
    USER_EXISTS = "USER_EXISTS"
    USER_NOT_FOUND = "USER_NOT_FOUND"

    # Devices and their commands.
    DEVICE_NOT_FOUND = "DEVICE_NOT_FOUND"
    DEVICE_ID_REQUIRED = "DEVICE_ID_REQUIRED"
    DEVICE_QUOTA_EXCEEDED = "DEVICE_QUOTA_EXCEEDED"
    ALREADY_LOGGED_IN = "ALREADY_LOGGED_IN"
    NETWORK_ERROR = "NETWORK_ERROR"
    RATE_LIMITED = "RATE_LIMITED"
    UNSUPPORTED_OPERATION = "UNSUPPORTED_OPERATION"
    MEDIA_NOT_FOUND = "MEDIA_NOT_FOUND"

    # Webhooks.
    WEBHOOK_NOT_CONFIGURED = "WEBHOOK_NOT_CONFIGURED"
    WEBHOOK_DISABLED = "WEBHOOK_DISABLED"
    EVENT_NOT_FOUND = "EVENT_NOT_FOUND"
    EVENT_NOT_SUBSCRIBED = "EVENT_NOT_SUBSCRIBED"

    # The simulated network's control API (local mode only).
    ACCOUNT_EXISTS = "ACCOUNT_EXISTS"
    ACCOUNT_NOT_FOUND = "ACCOUNT_NOT_FOUND"
    RECIPIENT_NOT_FOUND = "RECIPIENT_NOT_FOUND"
    PAIR_CODE_NOT_FOUND = "PAIR_CODE_NOT_FOUND"
    CALL_NOT_FOUND = "CALL_NOT_FOUND"  # also POST /calls/{call_id}/reject (the API)

    # Contacts.
    CONTACT_NOT_FOUND = "CONTACT_NOT_FOUND"

    # Planned sending: the outbox as a resource.
    ALREADY_SENT = "ALREADY_SENT"  # DELETE /sends/{id} of a send that went out or is going out
    SEND_CANCELED = "SEND_CANCELED"  # a repeat's Idempotency-Key is bound to a canceled send
