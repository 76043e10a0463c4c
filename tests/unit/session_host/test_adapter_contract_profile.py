"""One contract, two adapters: the linked account's presence and profile (``adapter_backends``).

Both read back the profile they set (push name, About text, picture), refuse the same inputs
before anything reaches the network (``INVALID``), and turn a followed person's presence into
the same ``contact.presence`` payload. The neonize side plays the network with the library's
own protobufs and whatsmeow's "no profile picture" error; the simulated side is the network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from adapter_backends import DEVICE_JID, DEVICE_PHONE, Backend
from fakes_neonize import deliver
from fakes_neonize import jid as fake_jid
from neonize.exc import GetProfilePictureError
from neonize.proto.Neonize_pb2 import (
    Device,
    GetProfilePictureReturnFunction,
    GetUserInfoSingleReturnFunction,
    Presence,
    ProfilePictureInfo,
    UserInfo,
)
from neonize.utils.enum import Presence as PresenceState
from test_adapter_contract_groups import ADAPTERS, BOB, JPEG, PNG, on
from test_adapter_contract_status import fails

from gateway.failures.kinds import ErrorKind
from session_host.network.neonize.jids import jid_str
from session_host.network.profile_types import Profile

LAST_SEEN = 1_700_000_000


def play_profile(net: Any) -> None:
    """On neonize, answer the profile calls as the network would, from what was set; the
    simulated network needs nothing."""
    if net.name != "neonize":
        return
    client: Any = net.network.client
    held: dict[str, Any] = {"name": "", "about": "", "picture": None}
    client.set_profile_name.side_effect = lambda name: held.update(name=name)
    client.set_status_message.side_effect = lambda about: held.update(about=about)

    def set_photo(data: bytes) -> str:
        held["picture"] = "1700000042"
        return "1700000042"

    def picture(jid: Any, params: Any) -> ProfilePictureInfo:
        if held["picture"] is None:
            error = "that user or group does not have a profile picture"
            raise GetProfilePictureError(GetProfilePictureReturnFunction(Error=error))
        return ProfilePictureInfo(URL=f"https://pps.whatsapp.net/v/{held['picture']}.jpg", ID=held["picture"])

    client.set_profile_photo.side_effect = set_photo
    client.get_me.side_effect = lambda: Device(PushName=held["name"])
    client.get_user_info.side_effect = lambda *people: [
        GetUserInfoSingleReturnFunction(JID=person, UserInfo=UserInfo(Status=held["about"]))
        for person in people
    ]
    client.get_profile_picture.side_effect = picture


def profile_changes(net: Any) -> int:
    """How many profile writes reached the network."""
    if net.name == "neonize":
        client: Any = net.network.client
        calls = (client.set_profile_name, client.set_status_message, client.set_profile_photo)
        return sum(call.call_count for call in calls)
    with net.network.reading() as world:
        account = world.accounts[DEVICE_PHONE]
        return sum(value is not None for value in (account.name, account.about, account.picture))


async def presence_of(net: Any, jid: str, available: bool) -> None:
    """The person ``jid`` comes online or goes offline, as the network tells followers."""
    if net.name == "neonize":
        # whatsmeow may carry a last-seen time either way; it means something only going offline
        event = Presence(From=fake_jid(jid.partition("@")[0]), Unavailable=not available, LastSeen=LAST_SEEN)
        await deliver(net.network.client, event)
    else:
        net.network.show_presence(jid.partition("@")[0], None, available)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_profile_reads_back_what_was_set(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a device whose account has no profile yet
        play_profile(net)
        profile = net.session.profile
        assert await profile.get_profile() == Profile(jid=DEVICE_JID, name=None, about=None, picture_url=None)
        # When it sets its name, About text and picture
        await profile.set_name("Acme Support")
        await profile.set_about("Answering 9-17")
        picture_id = await profile.set_picture(JPEG)
        # Then the profile reads them back, the picture as a URL naming its id
        read = await profile.get_profile()
        assert (read.jid, read.name, read.about) == (DEVICE_JID, "Acme Support", "Answering 9-17")
        assert read.picture_url is not None
        assert picture_id in read.picture_url
        assert profile_changes(net) == 3

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_both_refuse_the_same_inputs_before_sending(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        play_profile(net)
        # When a name, an About text, a picture or a person breaks the rules
        for call in (
            net.session.profile.set_name(""),
            net.session.profile.set_name("   "),
            net.session.profile.set_name("n" * 26),
            net.session.profile.set_about("a" * 140),
            net.session.profile.set_picture(PNG),
            net.session.presence.subscribe_presence("120363000000000001@g.us"),
            net.session.presence.subscribe_presence("15550000002"),
        ):
            # Then each is INVALID on both adapters
            await fails(ErrorKind.INVALID, call)
        # And nothing reached the network
        assert profile_changes(net) == 0

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_followed_persons_presence_arrives_as_contact_presence(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a device online, following Bob
        bob, _ = net.person(BOB)
        await net.session.presence.send_presence(True)
        await net.session.presence.subscribe_presence(bob)
        # When Bob comes online, then goes offline
        await presence_of(net, bob, True)
        online = await net.next_event("contact.presence", 1)
        await presence_of(net, bob, False)
        offline = await net.next_event("contact.presence", 2)
        # Then both adapters report the same payloads: a last-seen time only going offline
        assert dict(online.data) == {"jid": bob, "available": True, "last_seen": None}
        assert (offline.data["jid"], offline.data["available"]) == (bob, False)
        assert offline.data["last_seen"] is not None

    on(adapter, tmp_path, scenario)


def test_neonize_sends_the_presence_and_subscription_to_the_library(tmp_path: Path) -> None:
    async def scenario(net: Any) -> None:
        bob, _ = net.person(BOB)
        await net.session.presence.send_presence(False)
        await net.session.presence.subscribe_presence(bob)
        client = net.network.client
        client.send_presence.assert_called_once_with(PresenceState.UNAVAILABLE)
        (followed,) = client.subscribe_presence.call_args.args
        assert jid_str(followed) == bob

    on("neonize", tmp_path, scenario)


def test_simulated_following_by_lid_and_what_others_see(tmp_path: Path) -> None:
    async def scenario(net: Any) -> None:
        # Given Bob, followed by his LID, and Cai, followed by nobody
        bob, bob_lid = net.person(BOB)
        net.person("15550000003")
        await net.session.presence.subscribe_presence(bob_lid)
        # When both come online
        net.network.show_presence("15550000003", None, True)
        net.network.show_presence(BOB, None, True)
        # Then the device hears of Bob only, by his user JID
        event = await net.next_event("contact.presence", 1)
        assert event.data["jid"] == bob
        assert [e.data["jid"] for e in net.events("contact.presence")] == [bob]
        # And the device's own presence and profile are what the network shows others
        await net.session.presence.send_presence(True)
        await net.session.profile.set_about("Here")
        seen = net.network.account_view(DEVICE_PHONE)
        assert (seen["available"], seen["about"]) == (True, "Here")

    on("simulated", tmp_path, scenario)
