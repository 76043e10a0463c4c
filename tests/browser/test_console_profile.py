"""The console's Profile panel on the simulated network: the device's account renamed and its
About text changed (GET /profile and the network's other accounts then see them), a picture
set from a JPEG file, presence shown available then unavailable, and a refused name."""

from __future__ import annotations

import hashlib
import io

import pytest
from console_panels_steps import assert_usable, open_device, panel
from e2e.device_flows import create_device, new_phone, pair_by_qr, simulator
from PIL import Image
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def jpeg() -> bytes:
    picture = io.BytesIO()
    Image.new("RGB", (64, 64), (10, 91, 211)).save(picture, format="JPEG")
    return picture.getvalue()


def test_edit_the_profile_set_a_picture_and_the_presence(console, api) -> None:
    console.expect_refusals(400)  # the name of spaces only
    # Given a connected device whose account has no profile yet
    tenant = api.register()
    phone = new_phone()
    device_id = create_device(api, tenant.admin_token, "profile phone")
    own_jid = pair_by_qr(api, tenant.admin_token, device_id, phone)["messaging_jid"]
    page = open_device(console, tenant.admin_token, "profile phone")
    profile = panel(page, "Profile")
    facts = profile.get_by_label("Profile of this account").locator("dd")
    expect(facts).to_have_text([own_jid, "not set", "not set", "not set"])

    # When the user sets the push name and the About text
    profile.get_by_label("Push name").fill("Front desk")
    profile.get_by_label("About").fill("Open 9 to 5")
    profile.get_by_role("button", name="Save profile").click()

    # Then the console, the API and the network's other accounts show them
    expect(profile.get_by_text("Profile saved.")).to_be_visible()
    expect(facts).to_have_text([own_jid, "Front desk", "Open 9 to 5", "not set"])
    headers = {"X-Device-Id": device_id}
    read = api.request("GET", "/profile", tenant.admin_token, headers=headers).json()["profile"]
    assert (read["name"], read["about"]) == ("Front desk", "Open 9 to 5")
    assert simulator(api, "GET", f"/accounts/{phone}")["account"]["about"] == "Open 9 to 5"

    # When the user chooses a JPEG file and sets it as the picture
    image = jpeg()
    profile.get_by_label("Picture file").set_input_files(
        {"name": "me.jpg", "mimeType": "image/jpeg", "buffer": image}
    )
    expect(profile.get_by_role("img", name="The chosen picture")).to_be_visible()
    profile.get_by_role("button", name="Set picture").click()

    # Then the network has that picture, and the profile links to it
    expect(profile.get_by_text("Picture set (")).to_be_visible()
    account = simulator(api, "GET", f"/accounts/{phone}")["account"]
    assert account["picture"]["sha256"] == hashlib.sha256(image).hexdigest()
    link = profile.get_by_role("link", name="Open the profile picture")
    expect(link).to_have_attribute("href", account["picture_url"])

    # When the user shows the account online, then offline
    profile.get_by_role("button", name="Show as available").click()
    expect(profile.get_by_text("Presence: available.")).to_be_visible()
    assert simulator(api, "GET", f"/accounts/{phone}")["account"]["available"] is True
    profile.get_by_role("button", name="Show as unavailable").click()

    # Then the network shows it offline
    expect(profile.get_by_text("Presence: unavailable.")).to_be_visible()
    assert simulator(api, "GET", f"/accounts/{phone}")["account"]["available"] is False

    # When the user saves a name of spaces only, the refusal names the field
    profile.get_by_label("Push name").fill("   ")
    profile.get_by_role("button", name="Save profile").click()
    alert = profile.get_by_role("form", name="Edit the profile").get_by_role("alert")
    expect(alert).to_contain_text("VALIDATION_ERROR: ")
    expect(alert).to_contain_text("name")
    # And every control of the panel is named and within reach, wide and at 360 px
    assert_usable(profile, 1280)
    assert_usable(profile, 360)
