"""The neonize adapter's events on the real neonize 0.5.2, offline.

One child process (``real_events.py``) opens two devices through the adapter, lets their real
clients dial a silent played network, and feeds real serialized neonize protobufs through
neonize's own event thunk, as Go does. These tests read what the sinks got: every kind the
adapter maps arrives under its catalog name with the payload the mapping gives; an edit is
``message.edited`` with the original id; a time the network did not give is null; media
declared over the limit is not fetched; a download the library keeps blocking ends at the
(test-small) deadline as ``media.error: timeout`` while another device's event is delivered
at once, and the device's own later event waits its turn.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from typing import Any

import pytest
import real_events
from real_events import MEDIA_DEADLINE, all_mapped_events, zero_filled

from gateway.webhooks.catalog import CATALOG
from session_host.network.neonize.events import EventContext
from session_host.network.neonize.mapping import MAPPED

PROMPT = 0.3
"""An event that waits for nothing reaches its sink within this many seconds."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the real library once (a process of its own: Go reads the proxy at start)."""
    out = tmp_path_factory.mktemp("real-events") / "report.json"
    port = _free_port()
    proxy = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "HTTPS_PROXY": proxy,
        "HTTP_PROXY": proxy,
        "NO_PROXY": "127.0.0.1,localhost",
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    done = subprocess.run(  # noqa: S603 (this interpreter and this repository's own script)
        [sys.executable, real_events.__file__, str(port), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(out.read_text())


def test_every_mapped_kind_reaches_the_sink_under_its_catalog_name_with_its_payload(
    report: dict[str, Any],
) -> None:
    # Given one real event of every class the adapter maps, fed through neonize's thunk
    assert set(report["mapped"]) == {t.__name__ for t in MAPPED}
    assert sorted(report["kinds"]) == sorted(report["mapped"])
    # When the sink got them, Then they came in order, each as the mapping names and builds it
    ctx = EventContext("dev-a", None)
    expected = [
        mapper_event for ev in all_mapped_events() if (mapper_event := MAPPED[type(ev)](ctx, zero_filled(ev)))
    ]
    got = [(e["name"], e["data"]) for e in report["all"]]
    assert got == [(e.name, json.loads(json.dumps(e.data, default=str))) for e in expected]
    assert len(got) == len(MAPPED)
    assert {name for name, _ in got} <= set(CATALOG)


def test_times_the_network_did_not_give_are_null_never_year_one(report: dict[str, Any]) -> None:
    # Given events whose times were Go's zero time
    events = {e["name"]: e["data"] for e in report["all"]}
    # Then no payload carries a year-1 date, and the named times are null
    assert "0001-01-01" not in json.dumps(report)
    assert events["identity.change"]["timestamp"] is None
    assert events["message.read"]["read_at"] is None
    assert events["contact.presence"]["last_seen"] is None
    assert events["connection.keepalive_timeout"]["last_success"] is None


def test_an_edit_is_message_edited_with_the_original_id(report: dict[str, Any]) -> None:
    edit = report["edit"]
    assert (edit["name"], edit["data"]) == (
        "message.edited",
        {
            "message_id": "3EB0ORIGINAL",
            "chat_jid": "5511999998888@s.whatsapp.net",
            "from": "5511999998888@s.whatsapp.net",
            "content": "hello, corrected",
            "is_from_me": False,
            "edited_at": "2023-11-14T22:16:20.000Z",
        },
    )


def test_every_form_of_edit_whatsmeow_delivers_is_message_edited(report: dict[str, Any]) -> None:
    wrapped, secret = report["other_edits"]
    assert (wrapped["name"], wrapped["data"]["message_id"], wrapped["data"]["content"]) == (
        "message.edited",
        "3EB0FIRST",
        "second thoughts",
    )
    assert wrapped["data"]["edited_at"] == "2023-11-14T22:16:30.000Z"  # the message's time
    assert (secret["name"], secret["data"]["message_id"], secret["data"]["content"]) == (
        "message.edited",
        "3EB0SECOND",
        None,
    )


def test_a_reaction_is_message_reaction_naming_the_message_reacted_to(report: dict[str, Any]) -> None:
    given, taken_back = report["reactions"]
    assert (given["name"], given["data"]) == (
        "message.reaction",
        {
            "message_id": "3EB0MINE",
            "chat_jid": "120363000000000001@g.us",
            "from": "5511999998888@s.whatsapp.net",
            "emoji": "👍",
            "is_from_me": False,
            "timestamp": "2023-11-14T22:16:25.000Z",
        },
    )
    # A reaction taken back has an empty emoji, and the message's time when it gives none
    assert (taken_back["name"], taken_back["data"]["emoji"], taken_back["data"]["timestamp"]) == (
        "message.reaction",
        "",
        "2023-11-14T22:16:26.000Z",
    )


def test_the_library_keys_the_adapters_reaction_by_the_message_and_its_author(report: dict[str, Any]) -> None:
    # The adapter names a group member's message by its author: whatsmeow keys it so
    assert report["built_reaction"] == {
        "remoteJID": "120363000000000001@g.us",
        "fromMe": False,
        "ID": "3EB0THEIRS",
        "participant": "5511999998888@s.whatsapp.net",
    }


def test_media_declared_over_the_limit_arrives_at_once_too_large_and_is_never_fetched(
    report: dict[str, Any],
) -> None:
    big = report["too_large"]
    media = big["data"]["media"]
    assert (big["name"], big["data"]["message_id"]) == ("message.received", "3EB0BIG")
    assert (media["media_path"], media["error"], big["attachment"]) == (None, "too_large", False)
    # A download on this played network blocks until the deadline (next test), so an answer
    # this prompt, with no new connection to the network, means none was started
    assert big["at"] - big["sent"] < PROMPT
    assert big["new_connections"] == 0


def test_a_download_the_library_keeps_blocking_times_out_without_holding_other_devices(
    report: dict[str, Any],
) -> None:
    run = report["timeout"]
    slow, receipt = run["a"]
    (other,) = run["b"]
    # The image is reported at the deadline, without bytes, as a timeout
    assert (slow["data"]["message_id"], slow["data"]["media"]["error"]) == ("3EB0SLOW", "timeout")
    assert slow["data"]["media"]["media_path"] is None
    assert MEDIA_DEADLINE <= slow["at"] - run["sent"] < MEDIA_DEADLINE + 1.0
    # The device's own later event waited for it: published after it
    assert receipt["name"] == "message.delivered"
    assert receipt["at"] >= slow["at"]
    # Another device's event, sent while the download hung, was delivered at once
    assert other["data"]["message_id"] == "3EB0OTHER"
    assert other["at"] - run["b_sent"] < PROMPT
    assert other["at"] < slow["at"]


# --- replies and polls --------------------------------------------------------


def test_a_reply_arrives_with_what_it_quotes(report: dict[str, Any]) -> None:
    # Given a real MessageEv whose extended text quotes the device's message, fed through neonize
    reply = report["reply"]
    # Then message.received carries quoted from its ContextInfo
    assert reply["name"] == "message.received"
    assert (reply["data"]["message_id"], reply["data"]["content"]) == ("3EB0REPLY", "Yes!")
    assert reply["data"]["quoted"] == {
        "message_id": "3EB0QUOTED",
        "from": "12025550123@s.whatsapp.net",
        "content": "Lunch?",
    }


def test_a_vote_the_library_cannot_decrypt_is_not_reported_and_holds_nothing_up(
    report: dict[str, Any],
) -> None:
    # Given a vote on a poll the device's store has no secret for, then a text, fed through neonize
    # Then the real decrypt_poll_vote refuses it: no poll.vote, and the text comes next
    assert [(e["name"], e["data"]["message_id"]) for e in report["after_vote"]] == [
        ("message.received", "3EB0AFTERVOTE")
    ]
