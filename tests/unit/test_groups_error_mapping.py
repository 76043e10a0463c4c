"""How each failure of a group command is answered: one lowercase code per reply kind, the
status from ``gateway.groups.codes``, and messages that never show the host's internals."""

from __future__ import annotations

import pytest

from gateway.bus import CommandName, Reply
from gateway.bus.messages import GROUP_COMMANDS
from gateway.groups import codes
from gateway.groups.errors import COMMANDS, command_answers, reply_error, timed_out


def failed(kind: str, message: str = "") -> Reply:
    return Reply(command_id="c", ok=False, error_kind=kind, error_message=message)


def test_every_group_command_of_the_bus_has_its_failure_code() -> None:
    assert set(COMMANDS) == set(GROUP_COMMANDS)
    assert {c.network_failure for c in COMMANDS.values()} <= set(codes.FAILURES)


@pytest.mark.parametrize("code", sorted(codes.REFUSALS))
def test_a_refusal_is_answered_with_its_own_code_and_status(code: str) -> None:
    # Given the session host's refusal (the network's, or the gateway's admin rule)
    error = reply_error(CommandName.UPDATE_GROUP, failed(code, "the device is not an admin of 1@g.us"))
    # Then its code, its status, the host's words
    assert (error.status, error.code) == (codes.REFUSALS[code], code)
    assert error.body() == {
        "success": False,
        "error": {"code": code, "message": "the device is not an admin of 1@g.us"},
    }


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [
        ("not_connected", 503, "device_disconnected"),
        ("not_running", 503, "device_disconnected"),
        ("rate_limited", 429, "rate_limited"),
        ("unsupported", 501, "unsupported_operation"),
        ("timeout", 504, "operation_timeout"),
        ("not_found", 404, "group_not_found"),
        ("invalid", 400, "invalid_request"),
        ("host_error", 500, "device_error"),
        ("something_new", 500, "device_error"),
        ("", 500, "device_error"),
    ],
)
def test_each_other_kind_has_one_code(kind: str, status: int, code: str) -> None:
    error = reply_error(CommandName.GROUP_INFO, failed(kind))
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
    ],
)
def test_a_network_failure_is_502_with_the_operations_code(name: CommandName, code: str) -> None:
    error = reply_error(name, failed("network"))
    assert (error.status, error.code) == (502, code)


def test_unsupported_names_the_operation() -> None:
    error = reply_error(CommandName.GROUP_REQUESTS, failed("unsupported", "neonize cannot list requests"))
    assert "group_requests" in error.message
    assert "neonize cannot list requests" in error.message


def test_a_timeout_of_a_change_says_the_change_may_have_been_made() -> None:
    assert "may or may not have been made" in timed_out(CommandName.UPDATE_GROUP).message
    assert "may or may not have been made" in reply_error(CommandName.JOIN_GROUP, failed("timeout")).message
    assert "nothing was changed" in timed_out(CommandName.LIST_GROUPS).message


def test_a_host_error_does_not_repeat_the_hosts_text() -> None:
    error = reply_error(CommandName.CREATE_GROUP, failed("host_error", "Traceback: KeyError in /srv/host.py"))
    assert "Traceback" not in error.message
    assert "host.py" not in error.message


@pytest.mark.parametrize("name", sorted(GROUP_COMMANDS))
def test_every_answer_of_a_command_is_documented(name: CommandName) -> None:
    # Given what a route sending the command documents
    documented = {(answer.status, code) for answer in command_answers(name) for code in answer.codes}
    # Then every kind the host may reply with (refusals aside: each route names its own) is in it
    kinds = ["not_connected", "not_running", "rate_limited", "unsupported", "timeout", "network"]
    kinds += ["not_found", "invalid", "host_error"]
    for kind in kinds:
        error = reply_error(name, failed(kind))
        assert (error.status, error.code) in documented, kind
    assert (504, "operation_timeout") in documented
