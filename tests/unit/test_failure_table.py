"""The one failure table: how each error kind of a command's reply is answered over HTTP, by
family, and that every route sending a command documents every answer of its family."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway.bus import CommandName, DeviceSnapshot, Reply
from gateway.bus.contracts import Done
from gateway.bus.messages import GROUP_COMMANDS, read_reply
from gateway.failures import table
from gateway.failures.codes import ErrorCode
from gateway.failures.kinds import ErrorKind
from gateway.failures.table import REFUSAL, TABLE, Family, family_of, table_of
from gateway.groups import codes
from gateway.groups.codes import OperationCode
from gateway.web.openapi_document import PACKAGED_DOCUMENT


def failed(
    kind: ErrorKind | None, message: str = "", snapshot: DeviceSnapshot | None = None, code: str | None = None
) -> Reply[Any]:
    return Reply(
        command_id="c", ok=False, error_kind=kind, error_message=message, device=snapshot, error_code=code
    )


def test_every_command_of_the_bus_is_in_exactly_one_family() -> None:
    families = [family for family, rows in TABLE.items() for _ in rows.commands]
    assert sorted(name for rows in TABLE.values() for name in rows.commands) == sorted(CommandName)
    assert len(families) == len(CommandName)


# --- the standard envelope ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [
        (ErrorKind.ALREADY_LOGGED_IN, 409, "ALREADY_LOGGED_IN"),
        (ErrorKind.NETWORK, 502, "NETWORK_ERROR"),
        (ErrorKind.TIMEOUT, 503, "SERVICE_UNAVAILABLE"),
        (ErrorKind.RATE_LIMITED, 429, "RATE_LIMITED"),
        (ErrorKind.UNSUPPORTED, 501, "UNSUPPORTED_OPERATION"),
        (ErrorKind.NOT_FOUND, 404, "NOT_FOUND"),
        (ErrorKind.HOST_ERROR, 500, "DEVICE_ERROR"),
        (ErrorKind.REFUSED, 500, "DEVICE_ERROR"),
        (None, 500, "DEVICE_ERROR"),
        (ErrorKind.HOST_FULL, 503, "SERVICE_UNAVAILABLE"),
        (ErrorKind.NOT_RUNNING, 503, "DEVICE_NOT_READY"),
        (ErrorKind.NOT_CONNECTED, 503, "DEVICE_NOT_READY"),
    ],
)
def test_each_kind_of_a_pairing_command_has_its_status_and_code(
    kind: ErrorKind | None, status: int, code: str
) -> None:
    error = table.failed(CommandName.PAIR_PHONE, failed(kind, "details"), "not_ready")
    assert (error.status, error.code) == (status, code)


def test_a_kind_this_api_does_not_know_is_the_host_failing() -> None:
    # Given a reply from a newer host, naming a kind this code has never heard of
    raw = {"v": 1, "command_id": "c", "ok": False, "error_kind": "brand_new", "error_message": "x"}
    reply = read_reply(raw, Done)
    # Then it is a host error: 500 DEVICE_ERROR, never a crash
    assert reply.error_kind is ErrorKind.HOST_ERROR
    assert table.failed(CommandName.CONNECT, reply, "connected").code == "DEVICE_ERROR"


def test_a_refusal_travels_as_its_kind_and_its_code() -> None:
    command_reply = Reply(
        command_id="c", ok=False, error_kind=ErrorKind.REFUSED, error_code="not_group_admin"
    )
    again = read_reply(json.loads(command_reply.to_json()), Done)
    assert (again.error_kind, again.error_code) == (ErrorKind.REFUSED, "not_group_admin")


@pytest.mark.parametrize("kind", [ErrorKind.NOT_RUNNING, ErrorKind.NOT_CONNECTED])
def test_a_lost_connection_is_device_disconnected(kind: ErrorKind) -> None:
    # From the host's snapshot when there is one, else from the record
    lost = DeviceSnapshot("disconnected", False, True, "1@s")
    from_snapshot = table.failed(CommandName.CONNECT, failed(kind, snapshot=lost), "")
    from_record = table.failed(CommandName.CONNECT, failed(kind), "disconnected")
    assert from_snapshot.code == from_record.code == "DEVICE_DISCONNECTED"
    pairing = DeviceSnapshot("pairing", False, False, None)
    assert table.failed(CommandName.CONNECT, failed(kind, snapshot=pairing), "disconnected").code == (
        "DEVICE_NOT_READY"
    )


def test_a_session_not_running_says_to_connect_unless_it_is_reconnecting() -> None:
    error = table.failed(CommandName.LOGOUT, failed(ErrorKind.NOT_RUNNING, "no session"), "not_ready")
    assert error.message == "the device's session is not running: connect the device first"
    lost = table.failed(CommandName.LOGOUT, failed(ErrorKind.NOT_RUNNING, "no session"), "disconnected")
    assert lost.message == "no session"


def test_invalid_input_is_a_validation_error_on_the_argument() -> None:
    error = table.failed(
        CommandName.PAIR_PHONE,
        failed(ErrorKind.INVALID, "not a phone on the network"),
        "not_ready",
        {"phone": "15551234567"},
    )
    assert (error.status, error.code) == (400, "VALIDATION_ERROR")
    assert error.validation == [
        {"field": "phone", "message": "not a phone on the network", "value": "15551234567"}
    ]


def test_a_host_error_does_not_repeat_the_hosts_text() -> None:
    error = table.failed(
        CommandName.CONNECT, failed(ErrorKind.HOST_ERROR, "Traceback: KeyError in /srv/host.py"), "connected"
    )
    assert "Traceback" not in error.message
    assert "host.py" not in error.message


@pytest.mark.parametrize(
    ("name", "kind", "status", "code"),
    [
        (CommandName.DELETE_MESSAGE, ErrorKind.NOT_FOUND, 404, "MESSAGE_NOT_FOUND"),
        (CommandName.DELETE_MESSAGE, ErrorKind.EXPIRED, 400, "DELETE_TIME_EXPIRED"),
        (CommandName.DELETE_MESSAGE, ErrorKind.NETWORK, 500, "DELETE_FAILED"),
        (CommandName.SYNC_HISTORY, ErrorKind.NETWORK, 502, "SYNC_REQUEST_FAILED"),
        (CommandName.RECONNECT, ErrorKind.CONFLICT, 409, "CONFLICT"),
        (CommandName.SEND_TEXT, ErrorKind.NETWORK, 500, "SEND_FAILED"),
        (CommandName.CONNECT, ErrorKind.CONFLICT, 500, "DEVICE_ERROR"),
        (CommandName.CONNECT, ErrorKind.EXPIRED, 500, "DEVICE_ERROR"),
    ],
)
def test_a_command_with_codes_of_its_own(name: CommandName, kind: ErrorKind, status: int, code: str) -> None:
    error = table.failed(name, failed(kind), "connected")
    assert (error.status, error.code) == (status, code)
    assert error.message


def test_no_reply_in_time_is_503_in_the_standard_envelope() -> None:
    error = table.timed_out(CommandName.CONNECT)
    assert (error.status, error.code) == (503, "SERVICE_UNAVAILABLE")
    assert error.message == "the device's session host did not answer in time; retry later"


# --- the lowercase envelope (groups, status privacy) -----------------------------------------


@pytest.mark.parametrize("code", sorted(codes.REFUSALS))
def test_a_refusal_is_answered_with_its_own_code_and_status(code: str) -> None:
    # Given the session host's refusal (the network's, or the gateway's admin rule)
    reply = failed(ErrorKind.REFUSED, "the device is not an admin of 1@g.us", code=code)
    error = table.failed(CommandName.UPDATE_GROUP, reply, "connected")
    # Then its code, its status, the host's words
    assert (error.status, error.code) == (codes.REFUSALS[code], code)
    assert error.body() == {
        "success": False,
        "error": {"code": code, "message": "the device is not an admin of 1@g.us"},
    }


def test_a_refusal_without_words_says_its_code_and_one_without_a_known_code_is_the_host_failing() -> None:
    quiet = table.failed(CommandName.UPDATE_GROUP, failed(ErrorKind.REFUSED, code="not_group_admin"), "")
    assert quiet.message == "not group admin"
    unknown = table.failed(CommandName.UPDATE_GROUP, failed(ErrorKind.REFUSED, code="made_up"), "")
    assert (unknown.status, unknown.code) == (500, "device_error")


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [
        (ErrorKind.NOT_CONNECTED, 503, "device_disconnected"),
        (ErrorKind.NOT_RUNNING, 503, "device_disconnected"),
        (ErrorKind.RATE_LIMITED, 429, "rate_limited"),
        (ErrorKind.UNSUPPORTED, 501, "unsupported_operation"),
        (ErrorKind.TIMEOUT, 504, "operation_timeout"),
        (ErrorKind.NOT_FOUND, 404, "group_not_found"),
        (ErrorKind.INVALID, 400, "invalid_request"),
        (ErrorKind.HOST_ERROR, 500, "device_error"),
        (None, 500, "device_error"),
    ],
)
def test_each_other_kind_of_a_group_command_has_one_code(
    kind: ErrorKind | None, status: int, code: str
) -> None:
    error = table.failed(CommandName.GROUP_INFO, failed(kind), "connected")
    assert (error.status, error.code) == (status, code)
    assert error.message
    assert codes.STATUS[code] == status


@pytest.mark.parametrize(
    ("name", "code"),
    [
        (CommandName.CREATE_GROUP, "create_failed"),
        (CommandName.GROUP_INVITE, "invite_failed"),
        (CommandName.JOIN_GROUP, "invite_failed"),
        (CommandName.LIST_GROUPS, "fetch_failed"),
        (CommandName.GROUP_INFO, "fetch_failed"),
        (CommandName.GROUP_REQUESTS, "fetch_failed"),
        (CommandName.GROUP_PARTICIPANTS, "update_failed"),
        (CommandName.UPDATE_GROUP, "update_failed"),
        (CommandName.GROUP_PICTURE, "update_failed"),
        (CommandName.GROUP_EPHEMERAL, "update_failed"),
        (CommandName.LEAVE_GROUP, "update_failed"),
        (CommandName.LINK_GROUP, "update_failed"),
        (CommandName.UNLINK_GROUP, "update_failed"),
        (CommandName.ANSWER_GROUP_REQUESTS, "update_failed"),
        (CommandName.GET_STATUS_PRIVACY, "privacy_update_failed"),
        (CommandName.SET_STATUS_PRIVACY, "privacy_update_failed"),
    ],
)
def test_a_network_failure_is_502_with_the_operations_code(name: CommandName, code: str) -> None:
    error = table.failed(name, failed(ErrorKind.NETWORK), "connected")
    assert (error.status, error.code) == (502, code)


def test_unsupported_names_the_operation_and_the_adapters_reason() -> None:
    reply = failed(ErrorKind.UNSUPPORTED, "neonize cannot list requests")
    error = table.failed(CommandName.GROUP_REQUESTS, reply, "connected")
    assert error.message == (
        "group_requests: this deployment's network adapter cannot list the join requests: "
        "neonize cannot list requests"
    )


def test_a_timeout_says_whether_the_change_may_have_been_made() -> None:
    assert "may or may not have been made" in table.timed_out(CommandName.UPDATE_GROUP).message
    timed_out_join = table.failed(CommandName.JOIN_GROUP, failed(ErrorKind.TIMEOUT, "slow"), "connected")
    assert "may or may not have been made" in timed_out_join.message
    assert "nothing was changed" in table.timed_out(CommandName.LIST_GROUPS).message
    assert table.timed_out(CommandName.SET_STATUS_PRIVACY).code == "privacy_update_timeout"
    assert "may or may not have changed" in table.timed_out(CommandName.SET_STATUS_PRIVACY).message
    assert "nothing was changed" in table.timed_out(CommandName.GET_STATUS_PRIVACY).message


def test_a_group_host_error_does_not_repeat_the_hosts_text() -> None:
    reply = failed(ErrorKind.HOST_ERROR, "Traceback: KeyError in /srv/host.py")
    error = table.failed(CommandName.CREATE_GROUP, reply, "connected")
    assert "Traceback" not in error.message
    assert error.message.startswith("the device's session host failed to create a group")


# --- what the routes document ---------------------------------------------------------------

ROUTES: dict[tuple[str, str], CommandName] = {
    ("delete", "/devices/{device_id}"): CommandName.DELETE,
    ("delete", "/global/tenants/{tenant_id}"): CommandName.DELETE,
    ("post", "/devices/{device_id}/connect"): CommandName.CONNECT,
    ("post", "/devices/{device_id}/disconnect"): CommandName.DISCONNECT,
    ("post", "/devices/{device_id}/logout"): CommandName.LOGOUT,
    ("post", "/devices/{device_id}/reconnect"): CommandName.RECONNECT,
    ("get", "/devices/{device_id}/qr"): CommandName.QR,
    ("post", "/devices/{device_id}/pair-phone"): CommandName.PAIR_PHONE,
    ("post", "/messages/read"): CommandName.MARK_READ,
    ("delete", "/messages/{message_id}"): CommandName.DELETE_MESSAGE,
    ("post", "/history/sync"): CommandName.SYNC_HISTORY,
    **{("post", f"/send/{kind}"): CommandName.SEND_TEXT for kind in ("text", "image", "video", "audio")},
    **{("post", f"/send/{kind}"): CommandName.SEND_TEXT for kind in ("document", "sticker", "location")},
    **{("post", f"/send/{kind}"): CommandName.SEND_TEXT for kind in ("contact", "template", "poll")},
    **{("post", f"/status/{kind}"): CommandName.PUBLISH_STATUS for kind in ("text", "image", "video")},
    ("get", "/status/privacy"): CommandName.GET_STATUS_PRIVACY,
    ("put", "/status/privacy"): CommandName.SET_STATUS_PRIVACY,
    ("post", "/groups"): CommandName.CREATE_GROUP,
    ("get", "/groups"): CommandName.LIST_GROUPS,
    ("get", "/groups/{jid}"): CommandName.GROUP_INFO,
    ("patch", "/groups/{jid}"): CommandName.UPDATE_GROUP,
    ("post", "/groups/{jid}/participants"): CommandName.GROUP_PARTICIPANTS,
    ("delete", "/groups/{jid}/participants"): CommandName.GROUP_PARTICIPANTS,
    ("post", "/groups/{jid}/picture"): CommandName.GROUP_PICTURE,
    ("put", "/groups/{jid}/ephemeral"): CommandName.GROUP_EPHEMERAL,
    ("get", "/groups/{jid}/invite"): CommandName.GROUP_INVITE,
    ("post", "/groups/{jid}/invite/reset"): CommandName.GROUP_INVITE,
    ("post", "/groups/join"): CommandName.JOIN_GROUP,
    ("delete", "/groups/{jid}/leave"): CommandName.LEAVE_GROUP,
    ("post", "/groups/{jid}/community/link"): CommandName.LINK_GROUP,
    ("delete", "/groups/{jid}/community/link"): CommandName.UNLINK_GROUP,
    ("get", "/groups/{jid}/requests"): CommandName.GROUP_REQUESTS,
    ("post", "/groups/{jid}/requests"): CommandName.ANSWER_GROUP_REQUESTS,
    # Presence and profile of the linked account.
    ("put", "/presence"): CommandName.SET_PRESENCE,
    ("post", "/contacts/{jid}/presence/subscribe"): CommandName.SUBSCRIBE_PRESENCE,
    ("get", "/profile"): CommandName.GET_PROFILE,
    ("patch", "/profile"): CommandName.UPDATE_PROFILE,
    ("put", "/profile/picture"): CommandName.SET_PROFILE_PICTURE,
    # Contacts.
    ("post", "/contacts/check"): CommandName.CHECK_CONTACTS,
    ("get", "/contacts/{jid}"): CommandName.GET_CONTACT,
    ("put", "/contacts/{jid}/block"): CommandName.BLOCK_CONTACT,
    ("delete", "/contacts/{jid}/block"): CommandName.UNBLOCK_CONTACT,
    ("get", "/contacts/blocklist"): CommandName.GET_BLOCKLIST,
    # Calls.
    ("post", "/calls/{call_id}/reject"): CommandName.REJECT_CALL,
    # Reactions and edits.
    ("post", "/messages/{message_id}/reaction"): CommandName.REACT_MESSAGE,
    ("patch", "/messages/{message_id}"): CommandName.EDIT_MESSAGE,
}
"""Every route that sends a device command, and the command (written here, not read from
the routes, so a route that stops documenting its family's answers fails below)."""


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(PACKAGED_DOCUMENT.read_text())
    return document


def _documented(operation: dict[str, Any]) -> set[tuple[int, str]]:
    return {
        (int(status), code)
        for status, response in operation["responses"].items()
        for code in response.get("x-error-codes", [])
    }


@pytest.mark.parametrize(("route", "name"), sorted(ROUTES.items()), ids=lambda value: str(value))
def test_every_answer_a_routes_command_can_get_is_documented(
    route: tuple[str, str], name: CommandName
) -> None:
    # Given what the committed OpenAPI document says the route answers
    method, path = route
    documented = _documented(_document()["paths"][path][method])
    # Then every kind the host can reply with, in every device state, no reply and an
    # incomplete one, is answered with a documented status and code (a group refusal's code is
    # the refusal's: the group routes name theirs, checked beside the host's refusals)
    for kind in ErrorKind:
        for status in ("connected", "disconnected"):
            error = table.failed(name, failed(kind, snapshot=DeviceSnapshot(status, False, True, None)), "")
            if table_of(name).failure(kind).code == REFUSAL:
                continue
            assert (error.status, error.code) in documented, (kind, status)
    for error in (table.timed_out(name), table.incomplete(name)):
        assert (error.status, error.code) in documented


def test_every_route_that_answers_a_command_failure_is_listed_above() -> None:
    # A route documenting the host's failure (500 DEVICE_ERROR / device_error) sends a command
    listed = set(ROUTES)
    for path, operations in _document()["paths"].items():
        for method, operation in operations.items():
            documented = _documented(operation)
            if (500, ErrorCode.DEVICE_ERROR) in documented or (500, OperationCode.DEVICE_ERROR) in documented:
                assert (method, path) in listed, (method, path)


def test_the_group_commands_are_the_group_families() -> None:
    group_families = {Family.GROUP_CREATE, Family.GROUP_CHANGE, Family.GROUP_INVITE, Family.GROUP_READ}
    assert {name for name in CommandName if family_of(name) in group_families} == set(GROUP_COMMANDS)
