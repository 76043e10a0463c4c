"""A huge field that fails validation is not echoed back whole: the answer stays small."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

MARKER = "…[truncated]"


def test_a_20_mb_field_is_echoed_as_its_first_200_characters(api, envelope):
    # Given a registration whose email is a 20 MB string
    email = "a" * (20 * 1024 * 1024)
    body = {"tenant_name": "big-field", "email": email, "password": "secret123"}
    # When it is sent
    response = api.request("POST", "/register", api.master_token, json=body)
    # Then 400 VALIDATION_ERROR on email, echoing 200 characters and the marker
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["email"]
    assert data["validation"][0]["value"] == "a" * 200 + MARKER
    # And the whole answer is small
    assert len(response.content) < 2_000


def test_a_huge_header_name_is_cut_in_the_field_and_the_message(api, envelope):
    # Given a caller with a device, and a webhook header whose name is 1 MB
    tenant = api.register()
    api.request("POST", "/devices", tenant.admin_token, json={})
    name = "H" * (1024 * 1024)
    body = {"webhook_url": "https://hooks.example.com/", "enabled_events": ["message"], "headers": {name: 5}}
    # When the configuration is sent
    response = api.request("POST", "/webhook", tenant.admin_token, json=body)
    # Then 400 VALIDATION_ERROR naming the header by its first 200 characters, in a small answer
    data = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in data["validation"]] == ["headers." + "H" * 200 + MARKER]
    assert len(response.content) < 4_000
