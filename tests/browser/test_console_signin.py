"""Signing in to the console: the served page and its headers, a good token, a wrong one,
and signing out. Tokens live in sessionStorage only."""

from __future__ import annotations

import pytest
import requests
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_console_page_is_served_with_a_strict_content_security_policy(stack) -> None:
    # When the console page and one of its scripts are fetched
    page = requests.get(f"{stack.base_url}/console", timeout=10)
    script = requests.get(f"{stack.base_url}/console/js/app.js", timeout=10)

    # Then both come with a CSP that allows this origin's scripts only, never inline ones
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    for response in (page, script):
        policy = response.headers["content-security-policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["default-src"] == "'self'"
        assert directives["script-src"] == "'self'"
        assert "unsafe-inline" not in policy
        assert "unsafe-eval" not in policy
        assert directives["img-src"] == "'self' data:"
        assert response.headers["x-content-type-options"] == "nosniff"
    # And the page loads its script as a module from this origin, with no inline script
    assert '<script type="module" src="/console/js/app.js"></script>' in page.text
    assert page.text.count("<script") == 1


def test_unknown_console_files_are_the_standard_404(stack) -> None:
    for path in ("/console/nothing.js", "/console/../routes.py", "/console/js/../../console.py"):
        response = requests.get(f"{stack.base_url}{path}", timeout=10)
        assert response.status_code == 404, path
        assert response.json()["error_code"] == "NOT_FOUND"


def test_sign_in_with_a_user_token_shows_the_devices_and_sign_out_forgets_it(console, api) -> None:
    # Given a tenant's admin token
    tenant = api.register()

    # When the user signs in with it
    page = console.sign_in(tenant.admin_token)

    # Then the devices view opens, naming the user and the tenant
    expect(page.get_by_role("heading", name="Devices")).to_be_visible()
    expect(page.get_by_text(f"admin@{tenant.name}.example.com (admin)")).to_be_visible()
    # And the token is kept in sessionStorage, and nowhere in the address
    assert console.session_storage()["console.token"] == tenant.admin_token
    assert tenant.admin_token not in page.url

    # When the page is reloaded, the session goes on
    page.reload()
    expect(page.get_by_role("heading", name="Devices")).to_be_visible()

    # When the user signs out
    page.get_by_role("button", name="Sign out").click()

    # Then the sign-in form is back and nothing is stored
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    assert console.session_storage() == {}


def test_a_wrong_token_shows_invalid_token_and_stores_nothing(console) -> None:
    console.expect_refusals(401)  # the gateway's answer to the wrong token
    # When someone signs in with a token the gateway does not know
    page = console.sign_in("0b8f8a52-0a8e-4d4f-9f7e-2a7d2d0c3f11")

    # Then the form says so and nothing is kept
    expect(page.get_by_role("alert")).to_have_text("Invalid token")
    expect(page.get_by_role("heading", name="Devices")).to_have_count(0)
    assert console.session_storage() == {}


def test_the_master_token_opens_the_platform_view(console, api) -> None:
    # Given a tenant
    tenant = api.register()

    # When the master token signs in
    page = console.sign_in(api.master_token)

    # Then the tenants are listed
    expect(page.get_by_role("heading", name="Tenants")).to_be_visible()
    expect(page.get_by_role("cell", name=tenant.name, exact=True)).to_be_visible()


def test_a_token_that_stops_working_ends_the_session_and_is_forgotten(console, api) -> None:
    console.expect_refusals(401)  # the poll's answer once the user is deactivated
    # Given a signed-in manager
    tenant = api.register()
    user_id, token = api.create_user(tenant, "manager")
    page = console.sign_in(token)
    expect(page.get_by_role("heading", name="Devices")).to_be_visible()

    # When an admin deactivates them
    response = api.request("PUT", f"/users/{user_id}", tenant.admin_token, json={"active": False})
    assert response.status_code == 200, response.text

    # Then the console says the session ended, shows the sign-in form and keeps nothing
    expect(page.get_by_role("alert")).to_have_text("Your session ended: sign in again.")
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    assert console.session_storage() == {}
