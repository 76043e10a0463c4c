"""The rules of a device's proxy_url: accepted forms, the address check outside local mode,
and the redaction every view uses."""

from __future__ import annotations

import pytest

from gateway.devices.proxies import ProxyUrlError, check_proxy_url, redacted


@pytest.mark.parametrize(
    "url",
    [
        "http://8.8.8.8:3128",
        "https://user@8.8.8.8:443/",
        "socks5://u:p%40ss@8.8.8.8:1080",
    ],
)
def test_a_proxy_on_a_public_address_is_accepted_everywhere(url: str) -> None:
    assert check_proxy_url(f"  {url} ", local_mode=False) == url


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:3128",
        "socks5://10.0.0.7:1080",
        "http://169.254.169.254:80",
        "socks5://localhost:1080",
    ],
)
def test_outside_local_mode_a_proxy_inside_the_network_is_refused(url: str) -> None:
    # Given a proxy on a loopback, private or link-local address (or a name for one)
    # Then it is refused outside local mode, and accepted locally (proxies on this machine)
    with pytest.raises(ProxyUrlError, match="non-public"):
        check_proxy_url(url, local_mode=False)
    assert check_proxy_url(url, local_mode=True) == url


def test_the_password_is_replaced_and_the_rest_kept() -> None:
    assert redacted("socks5://alice:s3:cret@proxy.example:1080") == "socks5://alice:***@proxy.example:1080"
    assert redacted("http://alice@proxy.example:8080") == "http://alice@proxy.example:8080"
    assert redacted("http://proxy.example:8080") == "http://proxy.example:8080"
    assert redacted(None) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1]:8080",
        "http://[2001:4860::8888]:80",
        "http://h\u00e9:80",
        "http://u:p@h:0",
        "http://h:1 x",
    ],
)
def test_what_the_documented_pattern_refuses_is_refused_in_every_mode(url: str) -> None:
    for local_mode in (True, False):
        with pytest.raises(ProxyUrlError):
            check_proxy_url(url, local_mode=local_mode)
