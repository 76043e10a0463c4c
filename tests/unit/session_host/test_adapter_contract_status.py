"""One contract, two adapters: stories and their audience (``adapter_backends``).

Both publish every kind of story to ``status@broadcast`` and refuse the same inputs
(``INVALID``, nothing sent). neonize cannot change the audience: ``set_status_privacy`` is in
its ``unsupported`` set, answered ``UNSUPPORTED`` with nothing sent.

Adapter-specific: who receives a story. The scripted neonize network does not model
recipients (the real network applies the account's setting out of the adapter's sight), so
whitelist and blacklist are checked on the simulated network only, with its contacts rule.
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
from adapter_backends import DEVICE_PHONE, Backend
from test_adapter_contract_groups import ADAPTERS, BOB, CAI, DEE, JPEG, on

from gateway import jids
from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError
from session_host.network.status_types import (
    MediaStatus,
    PrivacyType,
    StatusContent,
    StatusPrivacy,
    TextStatus,
)

MP4 = b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 16
STORIES: list[StatusContent] = [
    TextStatus("Hello", background_color="#00AA55", font=1),
    MediaStatus(JPEG, "image/jpeg", caption="a picture"),
    MediaStatus(MP4, "video/mp4"),
]


async def fails(kind: ErrorKind, call: Awaitable[Any]) -> None:
    with pytest.raises(NetworkError) as caught:
        await call
    assert caught.value.kind is kind, caught.value


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_each_kind_of_story_is_published_to_status_broadcast(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a connected device with a contact
        net.person(BOB)
        before = net.put_on_network()
        # When it publishes a text, an image and a video story
        sent = [await net.session.status.publish_status(story) for story in STORIES]
        # Then each answers its own id in status@broadcast, and each is one message on the network
        assert [s.chat_jid for s in sent] == [jids.STATUS_BROADCAST_JID] * 3
        assert len({s.message_id for s in sent}) == 3
        assert all(s.timestamp > 0 for s in sent)
        assert net.put_on_network() == before + 3

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_audience_reads_contacts_and_changes_where_the_adapter_can(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a new account's device, Then its stories go to its contacts
        bob, _ = net.person(BOB)
        assert await net.session.status.get_status_privacy() == StatusPrivacy(PrivacyType.CONTACTS)
        before = net.put_on_network()
        only_bob = StatusPrivacy(PrivacyType.WHITELIST, (bob,))
        # When it shares with Bob only
        if "set_status_privacy" in net.unsupported:
            # Then neonize cannot, and nothing was sent
            await fails(ErrorKind.UNSUPPORTED, net.session.status.set_status_privacy(only_bob))
        else:
            # Then the setting is in force and reads back
            assert await net.session.status.set_status_privacy(only_bob) == only_bob
            assert await net.session.status.get_status_privacy() == only_bob
        assert net.put_on_network() == before

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_both_refuse_the_same_inputs_before_sending(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        before = net.put_on_network()
        # When the audience or the story breaks the rules, Then each is INVALID on both
        await fails(
            ErrorKind.INVALID,
            net.session.status.set_status_privacy(StatusPrivacy(PrivacyType.WHITELIST)),
        )
        for story in (
            TextStatus(""),
            TextStatus("hi", background_color="#GGGGGG"),
            TextStatus("hi", font=3),
            MediaStatus(b"", "video/mp4"),
            MediaStatus(b"ID3", "audio/mpeg"),
        ):
            await fails(ErrorKind.INVALID, net.session.status.publish_status(story))
        # And nothing reached the network
        assert net.put_on_network() == before

    on(adapter, tmp_path, scenario)


def test_simulated_whitelist_and_blacklist_pick_the_readers(tmp_path: Path) -> None:
    async def scenario(net: Any) -> None:
        # Given the device's account with three contacts: Bob and Cai added, Dee wrote to it
        bob, cai, dee = (net.person(phone)[0] for phone in (BOB, CAI, DEE))
        net.network.add_contacts(DEVICE_PHONE, [BOB, CAI])
        net.network.send_from_account(DEE, net.session.jid, "hi")

        def readers(message_id: str) -> list[str]:
            phones = {BOB: bob, CAI: cai, DEE: dee}
            return [
                jid
                for phone, jid in phones.items()
                if any(s["message_id"] == message_id for s in net.network.inbox(phone)["statuses"])
            ]

        # When it publishes with each setting, Then exactly the allowed contacts see each story
        everyone = await net.session.status.publish_status(TextStatus("all"))
        await net.session.status.set_status_privacy(StatusPrivacy(PrivacyType.WHITELIST, (cai,)))
        only_cai = await net.session.status.publish_status(TextStatus("cai"))
        await net.session.status.set_status_privacy(StatusPrivacy(PrivacyType.BLACKLIST, (cai,)))
        not_cai = await net.session.status.publish_status(TextStatus("not cai"))
        assert readers(everyone.message_id) == [bob, cai, dee]
        assert readers(only_cai.message_id) == [cai]
        assert readers(not_cai.message_id) == [bob, dee]

    on("simulated", tmp_path, scenario)
