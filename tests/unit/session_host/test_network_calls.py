"""The network call of a send, by kind: which port call each kind makes, with what, and how
media that cannot be read or are not of the kind fail the send (``INVALID``)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
from typing import Any

import pytest
from fakes_sending import CHAT, FakeOutbox, Rig
from PIL import Image

from gateway.failures.kinds import ErrorKind
from gateway.messages.sends import Send, SendState
from session_host.network.media_types import (
    ContactCard,
    Location,
    MediaKind,
    OutgoingMedia,
    QuickReply,
    Template,
)
from session_host.network.port import NetworkError, SentMessage
from session_host.sending import network_calls


def run(call: Any) -> Any:
    return asyncio.run(call)


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (10, 10), (0, 0, 255)).save(out, format="PNG")
    return out.getvalue()


class PortCalls:
    """Records each port call as (name, arguments)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def _sent(self, name: str, *args: Any) -> SentMessage:
        self.calls.append((name, args))
        return SentMessage("NET-1", CHAT, 1.0)

    async def send_text(self, to: str, text: str, *, mentions: Any = ()) -> SentMessage:
        return self._sent("text", to, text, list(mentions))

    async def send_media(self, to: str, media: OutgoingMedia) -> SentMessage:
        return self._sent("media", to, media)

    async def send_location(self, to: str, location: Location) -> SentMessage:
        return self._sent("location", to, location)

    async def send_contact(self, to: str, card: ContactCard) -> SentMessage:
        return self._sent("contact", to, card)

    async def send_template(self, to: str, template: Template) -> SentMessage:
        return self._sent("template", to, template)


def a_send(store: FakeOutbox, kind: str, text: str = "", payload: dict[str, Any] | None = None) -> Send:
    return dataclasses.replace(store.add(text), kind=kind, payload=payload)


def test_text_goes_with_its_mentions() -> None:
    store, port = FakeOutbox(), PortCalls()
    send = a_send(store, "text", "hi @15557654321")
    run(network_calls.send_message(port, send, store))
    assert port.calls == [("text", (CHAT, "hi @15557654321", ["15557654321@s.whatsapp.net"]))]


def test_stored_media_go_as_stored_with_their_caption_filename_and_ptt() -> None:
    store, port = FakeOutbox(), PortCalls()
    store.media["a" * 32] = b"OggS-voice"
    payload = {"media_id": "a" * 32, "mimetype": "audio/ogg", "caption": None, "filename": None, "ptt": True}
    run(network_calls.send_message(port, a_send(store, "audio", "", payload), store))
    assert port.calls == [
        ("media", (CHAT, OutgoingMedia(MediaKind.AUDIO, b"OggS-voice", "audio/ogg", ptt=True)))
    ]


def test_a_fetched_png_sticker_is_sent_as_webp() -> None:
    store, port = FakeOutbox(), PortCalls()
    store.urls["http://127.0.0.1/s.png"] = png()
    payload = {
        "url": "http://127.0.0.1/s.png",
        "mimetype": None,
        "caption": None,
        "filename": None,
        "ptt": False,
    }
    run(network_calls.send_message(port, a_send(store, "sticker", "", payload), store))
    ((_, (_, media)),) = port.calls
    assert (media.kind, media.mimetype, media.data[8:12]) == (MediaKind.STICKER, "image/webp", b"WEBP")


@pytest.mark.parametrize(
    ("urls", "stored", "payload", "says"),
    [
        ({}, {}, {"url": "http://127.0.0.1/gone.png"}, "HTTP 404"),
        ({"http://127.0.0.1/x": b"%PDF-1.4"}, {}, {"url": "http://127.0.0.1/x"}, "image must be"),
        ({}, {}, {"media_id": "b" * 32, "mimetype": "image/png"}, "no such media"),
    ],
)
def test_media_that_cannot_be_had_fail_the_send_as_invalid(
    urls: dict[str, bytes], stored: dict[str, bytes], payload: dict[str, Any], says: str
) -> None:
    store, port = FakeOutbox(), PortCalls()
    store.urls, store.media = urls, stored
    with pytest.raises(NetworkError) as failed:
        run(network_calls.send_message(port, a_send(store, "image", "", payload), store))
    assert failed.value.kind is ErrorKind.INVALID
    assert says in str(failed.value)
    assert port.calls == []


def test_location_contact_and_template_make_their_port_calls() -> None:
    store, port = FakeOutbox(), PortCalls()
    sends = [
        a_send(store, "location", "Gate", {"latitude": 1.5, "longitude": 2, "name": "Gate", "address": None}),
        a_send(store, "contact", "Ana", {"name": "Ana", "phone": "15557654321"}),
        a_send(store, "template", "Go?", {"footer": None, "buttons": [{"id": "y", "text": "Yes"}]}),
    ]
    for send in sends:
        run(network_calls.send_message(port, send, store))
    assert port.calls == [
        ("location", (CHAT, Location(1.5, 2.0, "Gate", None))),
        ("contact", (CHAT, ContactCard("Ana", "15557654321"))),
        ("template", (CHAT, Template("Go?", None, (QuickReply("y", "Yes"),)))),
    ]


def test_only_a_text_mentions_anyone() -> None:
    store = FakeOutbox()
    assert network_calls.mentions(a_send(store, "image", "look @15557654321", {})) == []


def test_an_unknown_kind_is_invalid() -> None:
    store = FakeOutbox()
    with pytest.raises(NetworkError) as failed:
        run(network_calls.send_message(PortCalls(), a_send(store, "hologram", "", {}), store))
    assert failed.value.kind is ErrorKind.INVALID


def test_the_dispatcher_fails_a_send_whose_url_does_not_fetch_and_tells_its_caller_invalid() -> None:
    async def scenario() -> tuple[Rig, Any]:
        # Given an image send whose url answers 404
        rig = Rig()
        payload = {"url": "http://127.0.0.1/gone.png", "mimetype": None, "caption": "x", "filename": None}
        send = rig.store.add("x", kind="image", payload=payload)
        # When the dispatcher takes it while its caller waits
        rig.start()
        outcome = await asyncio.wait_for(rig.sender.watch(send.send_key), 5)
        await rig.until(lambda: rig.store.state(send).state is SendState.FAILED)
        await rig.stop()
        return rig, outcome

    rig, outcome = asyncio.run(scenario())
    # Then the send is failed as invalid (400 over HTTP), nothing went out, nothing was published
    assert outcome.error_kind is ErrorKind.INVALID
    assert "HTTP 404" in (outcome.error or "")
    assert rig.session.log == []
    assert rig.published == []
