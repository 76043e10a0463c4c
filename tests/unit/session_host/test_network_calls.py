"""The network call of a send, by kind: which port call each kind makes, with what, and how
media that cannot be read or are not of the kind fail the send (``INVALID``)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
from typing import Any

import pytest
from botocore.exceptions import EndpointConnectionError
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
from session_host.network.reply_types import Poll, Quote
from session_host.network.status_types import MediaStatus, TextStatus
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
        self.quotes: list[Quote | None] = []  # the quote of each call, in order

    def _sent(self, name: str, *args: Any, quote: Quote | None) -> SentMessage:
        self.calls.append((name, args))
        self.quotes.append(quote)
        return SentMessage("NET-1", CHAT, 1.0)

    async def send_text(
        self, to: str, text: str, *, mentions: Any = (), quote: Quote | None = None
    ) -> SentMessage:
        return self._sent("text", to, text, list(mentions), quote=quote)

    async def send_media(self, to: str, media: OutgoingMedia, *, quote: Quote | None = None) -> SentMessage:
        return self._sent("media", to, media, quote=quote)

    async def send_location(self, to: str, location: Location, *, quote: Quote | None = None) -> SentMessage:
        return self._sent("location", to, location, quote=quote)

    async def send_contact(self, to: str, card: ContactCard, *, quote: Quote | None = None) -> SentMessage:
        return self._sent("contact", to, card, quote=quote)

    async def send_template(self, to: str, template: Template, *, quote: Quote | None = None) -> SentMessage:
        return self._sent("template", to, template, quote=quote)

    async def send_poll(self, to: str, poll: Poll, *, quote: Quote | None = None) -> SentMessage:
        return self._sent("poll", to, poll, quote=quote)


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


# --- replies and polls --------------------------------------------------------


def test_a_poll_goes_with_its_question_options_and_answers_rule() -> None:
    store, port = FakeOutbox(), PortCalls()
    payload = {"question": "Lunch?", "options": ["Yes", "No"], "multiple_answers": True}
    run(network_calls.send_message(port, a_send(store, "poll", "Lunch?", payload), store))
    assert port.calls == [("poll", (CHAT, Poll("Lunch?", ("Yes", "No"), multiple_answers=True)))]


def test_a_reply_to_a_sent_message_of_the_device_quotes_it_by_the_networks_id_with_its_text() -> None:
    # Given a text the device sent in the chat, known by the gateway's id M0
    store, port = FakeOutbox(), PortCalls()
    first = dataclasses.replace(store.add("the plan"), state=SendState.SENT, network_message_id="3EB0AAA")
    store.items[first.send_key] = first
    # When a reply names it by the gateway's id, and another by the network's
    for named in (first.message_id, "3EB0AAA"):
        reply = dataclasses.replace(store.add("agreed"), reply_to=named)
        run(network_calls.send_message(port, reply, store))
    # Then both quote the network's id, as the device's own message, with its text
    assert port.quotes == [Quote("3EB0AAA", from_me=True, content="the plan")] * 2


def test_a_reply_to_an_id_the_gateway_does_not_know_passes_it_as_the_networks() -> None:
    store, port = FakeOutbox(), PortCalls()
    elsewhere = dataclasses.replace(
        store.add("other chat"),
        state=SendState.SENT,
        network_message_id="3EB0BBB",
        chat_jid="1@s.whatsapp.net",
    )
    store.items[elsewhere.send_key] = elsewhere
    for named in ("3EB0RECEIVED", elsewhere.message_id):  # a received message; a send of another chat
        run(network_calls.send_message(port, dataclasses.replace(store.add("ok"), reply_to=named), store))
    assert port.quotes == [Quote("3EB0RECEIVED"), Quote(elsewhere.message_id)]


def test_a_reply_whose_quote_cannot_be_looked_up_fails_before_the_network() -> None:
    class Unreadable(FakeOutbox):
        async def find(self, _tenant: str, _device: str, message_id: str) -> Send | None:
            raise EndpointConnectionError(endpoint_url="http://dynamodb")

    store, port = Unreadable(), PortCalls()
    with pytest.raises(NetworkError) as failed:
        run(network_calls.send_message(port, dataclasses.replace(store.add("ok"), reply_to="M9"), store))
    assert failed.value.kind is ErrorKind.NETWORK
    assert port.calls == []


# Planned stories (issue 25): a send of kind "status" is published on the session's status.
class StoryCalls:
    def __init__(self) -> None:
        self.published: list[Any] = []

    async def publish_status(self, content: Any) -> SentMessage:
        self.published.append(content)
        return SentMessage("STORY-1", "status@broadcast", 2.0)


@dataclasses.dataclass
class Session:
    sending: PortCalls
    status: StoryCalls


def test_a_planned_story_is_published_not_sent() -> None:
    # Given planned stories: a text one, and an image one whose bytes the API stored
    store, session = FakeOutbox(), Session(PortCalls(), StoryCalls())
    store.media["b" * 32] = png()
    text = {"kind": "text", "text": "open today", "background_color": "#112233", "font": 2}
    image = {"kind": "image", "media_id": "b" * 32, "caption": "new stock"}

    # When they are dispatched
    sent = [
        run(network_calls.dispatch(session, a_send(store, "status", "", payload), store))
        for payload in (text, image)
    ]

    # Then each is published as the story its payload describes, and nothing is sent as a message
    assert [item.message_id for item in sent] == ["STORY-1", "STORY-1"]
    assert session.status.published == [
        TextStatus("open today", "#112233", 2),
        MediaStatus(png(), "image/png", "new stock"),
    ]
    assert session.sending.calls == []


def test_a_planned_story_whose_url_does_not_fetch_fails_invalid() -> None:
    store, session = FakeOutbox(), Session(PortCalls(), StoryCalls())
    send = a_send(store, "status", "", {"kind": "video", "url": "https://example.org/gone.mp4"})
    with pytest.raises(NetworkError) as failed:
        run(network_calls.dispatch(session, send, store))
    assert failed.value.kind is ErrorKind.INVALID
    assert session.status.published == []
