"""Which webhook URLs a deployment accepts outside local mode: HTTPS only (unless plain HTTP is
allowed), and never a host that is, or resolves to, a non-public address.

The local stack runs in this process, so the settings are switched off local mode for each
test (``settings_override``) and name resolution is faked for the test's own host names.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from webhooks_steps import new_device, webhook_body

pytestmark = pytest.mark.e2e

FAKE_NAMES = {
    "hooks.public.example": ["93.184.215.14"],
    "intranet.example": ["10.1.2.3"],
    "split.example": ["93.184.215.14", "192.168.7.7"],
    "v6-private.example": ["fd12:3456:789a::1"],
    "v6-mapped.example": ["::ffff:127.0.0.1"],
}


@pytest.fixture
def deployed(settings_override: Callable[..., None], monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings as deployed on AWS (no local mode, HTTPS only) and a resolver that knows the
    names of ``FAKE_NAMES``; every other name resolves as usual."""
    settings_override(GATEWAY_LOCAL_MODE="false", ALLOW_HTTP_WEBHOOKS="false")
    real = socket.getaddrinfo

    def fake(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host in FAKE_NAMES:
            return [
                (
                    socket.AF_INET6 if ":" in address else socket.AF_INET,
                    socket.SOCK_STREAM,
                    6,
                    "",
                    (address, port),
                )
                for address in FAKE_NAMES[host]
            ]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)


@pytest.fixture
def token(api: Any) -> str:
    tenant = api.register()
    new_device(api, tenant.admin_token)
    return tenant.admin_token


@pytest.mark.parametrize(
    "url",
    [
        # IPv4
        "https://127.0.0.1/hook",
        "https://10.0.0.8/hook",
        "https://172.16.5.4/hook",
        "https://192.168.1.20:8443/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://100.64.0.1/hook",
        "https://0.0.0.0/hook",
        "https://224.0.0.1/hook",
        "https://240.0.0.1/hook",
        # IPv6
        "https://[::1]/hook",
        "https://[fe80::1]/hook",
        "https://[fc00::1]/hook",
        "https://[ff02::1]/hook",
        "https://[::]/hook",
        # IPv4 inside IPv6
        "https://[::ffff:127.0.0.1]/hook",
        "https://[::ffff:a00:1]/hook",
        "https://[::ffff:169.254.169.254]/hook",
        "https://[::127.0.0.1]/hook",
        "https://[2002:c0a8:101::1]/hook",
        # names
        "https://localhost/hook",
        "https://intranet.example/hook",
        "https://split.example/hook",
        "https://v6-private.example/hook",
        "https://v6-mapped.example/hook",
    ],
)
def test_non_public_receivers_are_refused(api, envelope, deployed, token, url):
    # Given a deployment outside local mode
    # When a device is configured with a URL whose host is, or resolves to, a non-public address
    response = api.request("POST", "/webhook", token, json=webhook_body(webhook_url=url))
    # Then 400 VALIDATION_ERROR on webhook_url, and nothing is stored
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in body["validation"]] == ["webhook_url"]
    assert "non-public" in body["error"]
    assert api.request("GET", "/webhook", token).status_code == 404


def test_a_name_that_does_not_resolve_is_refused(api, envelope, deployed, token):
    # When the receiver's host name does not resolve
    url = "https://no-such-host.invalid/hook"
    response = api.request("POST", "/webhook", token, json=webhook_body(webhook_url=url))
    # Then it cannot be checked, and is refused
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert "does not resolve" in body["error"]


def test_public_receivers_are_accepted(api, deployed, token):
    # When a device is configured with a public address, and with a name resolving to one
    for url in (
        "https://93.184.215.14/hook",
        "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook",
        "https://hooks.public.example/in",
    ):
        response = api.request("POST", "/webhook", token, json=webhook_body(webhook_url=url))
        # Then each is stored
        assert response.status_code in (200, 201), response.text
        assert response.json()["webhook"]["webhook_url"] == url


def test_plain_http_is_refused_unless_the_deployment_allows_it(
    api, envelope, deployed, token, settings_override
):
    # Given a deployment that allows HTTPS only
    url = "http://hooks.public.example/in"
    # When a device is configured with a plain-HTTP URL
    refused = api.request("POST", "/webhook", token, json=webhook_body(webhook_url=url))
    # Then 400 VALIDATION_ERROR
    body = envelope(refused, 400, "VALIDATION_ERROR")
    assert "https" in body["error"]
    # When the deployment allows plain HTTP (ALLOW_HTTP_WEBHOOKS)
    settings_override(ALLOW_HTTP_WEBHOOKS="true")
    allowed = api.request("POST", "/webhook", token, json=webhook_body(webhook_url=url))
    # Then the same URL is accepted, its host still checked
    assert allowed.status_code == 201, allowed.text
    private = api.request("POST", "/webhook", token, json=webhook_body(webhook_url="http://10.0.0.8/"))
    envelope(private, 400, "VALIDATION_ERROR")


def test_pending_url_is_checked_the_same_way(api, envelope, deployed, token):
    # When a user's pending URL points at a private address, or is plain HTTP
    for url in (
        "https://intranet.example/hook",
        "https://[::ffff:10.0.0.1]/",
        "http://hooks.public.example/",
    ):
        response = api.request("POST", "/user/webhook", token, json={"webhook_url": url})
        # Then 400 VALIDATION_ERROR
        envelope(response, 400, "VALIDATION_ERROR")
    # And a public HTTPS URL is accepted
    ok = api.request("POST", "/user/webhook", token, json={"webhook_url": "https://hooks.public.example/u"})
    assert ok.status_code == 200, ok.text


@pytest.mark.usefixtures("deployed")
@pytest.mark.parametrize("url", ["https://intranet.example/hook", "http://hooks.public.example/hook"])
def test_register_and_new_users_refuse_a_pending_url_the_deployment_cannot_call(
    api: Any, envelope: Callable[..., dict[str, Any]], url: str
) -> None:
    # Given a deployment outside local mode
    # When a tenant is registered, or a user created, with a URL it may not deliver to
    name = f"ssrf-{uuid.uuid4().hex[:10]}"
    body = {"tenant_name": name, "email": f"admin@{name}.example.com", "password": "secret123"}
    register = api.request("POST", "/register", api.master_token, json={**body, "webhook_url": url})

    # Then both answer 400 VALIDATION_ERROR naming webhook_url, and nothing is created
    assert envelope(register, 400, "VALIDATION_ERROR")["validation"][0]["field"] == "webhook_url"
    assert api.request("POST", "/register", api.master_token, json=body).status_code == 201  # name still free
    tenant = api.register()
    user = {"email": f"u-{uuid.uuid4().hex[:8]}@example.com", "password": "secret123", "role": "user"}
    response = api.request("POST", "/users", tenant.admin_token, json={**user, "webhook_url": url})
    assert envelope(response, 400, "VALIDATION_ERROR")["validation"][0]["field"] == "webhook_url"
